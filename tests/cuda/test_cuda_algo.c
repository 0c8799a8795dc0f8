/*
 * Host test of the CUDA kernels' per-thread bodies (src/cuda/dev_algo.h):
 * each launch of kernels.cu is emulated by a loop over its thread indices,
 * in the same order of launches as the drivers in kernels.cu, and the
 * results are compared with the CPU library:
 *   - NTT forward / inverse / coset forward / coset inverse vs cz_ntt_*,
 *     with the production tiles and with small ones (many stage groups);
 *     the stage-group plan;
 *   - the 6-NTT Groth16 quotient vs cz_quotient_h, and the row check;
 *   - signed-digit recoding: sum d_w 2^(cw) == k (GMP) for every window;
 *   - the launch plan of dev_launch.h (window choice, 1024 groups, chunks);
 *   - the block scan, replayed phase by phase, vs a sequential scan;
 *   - the whole Pippenger pipeline replayed with the device's grid and
 *     plan (count, scan, scatter with emulated atomics, bucket sums over
 *     chunks, grouped reduction, folds, scalar = 1 path, Horner) vs
 *     cz_msm_g1, as affine bytes: windows 4..16 (and 1, and 16 with fewer
 *     points than groups), random and skewed scalars (repeated values, 0,
 *     1, 2, r - 1), window 16 with many points per bucket, 2^12 points in
 *     chunks of 2^10, (nearly) all scalars equal (buckets split into
 *     pieces over many threads);
 *   - density gather vs a naive compaction.
 * What this cannot check: the launch geometry, atomics, shared memory and
 * the device compiler; tools/device-check.sh does that on a GPU.
 */
#include "testutil.h"
#include "cuda/dev_algo.h"
#include "ntt_replay.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include <stdlib.h>
#include <string.h>

/* MSM_N: points of the per-window runs (MSM_WSTEP: every window, or every
 * third under sanitizers); MSM_BIG: the window-16 skewed run; MSM_CHUNKED
 * points in chunks of 2^MSM_CHUNK_LOG */
#ifdef CUZK_SANITIZED
#define NTT_MAX_LOG 10
#define MSM_N 600
#define MSM_WSTEP 3
#define MSM_BIG 4096
#else
#define NTT_MAX_LOG 12
#define MSM_N 4096
#define MSM_WSTEP 1
#define MSM_BIG 16384
#endif
#define MSM_CHUNKED 4096
#define MSM_CHUNK_LOG 10

static int setup(void **state)
{
    (void)state;
    cz_test_seed();
    return 0;
}

/* ---- emulated NTT (the tables and launch lists of kernels.cu: ntt_replay.h) ---- */
typedef struct {
    unsigned log_n;
    cz_fr *tw, *g_lo, *g_hi, *gi_lo, *gi_hi, *s_lo, *s_hi, *si_lo, *si_hi;
    cz_fr n_inv, inv_2n;
} emu_domain;

static void emu_domain_build(emu_domain *d, unsigned log_n)
{
    uint64_t n = (uint64_t)1 << log_n, nhi = (n >> CZ_DEV_TAB_BITS) + 1;
    d->log_n = log_n;
    d->tw = malloc((n / 2 + 1) * sizeof(cz_fr));
    cz_fr **lo_t[4] = { &d->g_lo, &d->gi_lo, &d->s_lo, &d->si_lo };
    cz_fr **hi_t[4] = { &d->g_hi, &d->gi_hi, &d->s_hi, &d->si_hi };
    cz_fr *lo[4], *hi[4];
    for (int k = 0; k < 4; k++) {
        lo[k] = *lo_t[k] = malloc(CZ_DEV_TAB_LO * sizeof(cz_fr));
        hi[k] = *hi_t[k] = malloc(nhi * sizeof(cz_fr));
        assert_non_null(lo[k]);
        assert_non_null(hi[k]);
    }
    assert_non_null(d->tw);
    assert_true(czr_domain_fill(log_n, d->tw, lo, hi, &d->n_inv, &d->inv_2n));
}

static void emu_domain_free(emu_domain *d)
{
    free(d->tw);
    free(d->g_lo);
    free(d->g_hi);
    free(d->gi_lo);
    free(d->gi_hi);
    free(d->s_lo);
    free(d->s_hi);
    free(d->si_lo);
    free(d->si_hi);
}

/* a transform program, run as kernels.cu launches it (ntt_replay.h) */
static void emu_run(const emu_domain *d, const cz_ntt_step *st, unsigned ns, unsigned tile_log)
{
    assert_true(czr_run(st, ns, d->tw, d->log_n, tile_log));
}

/* one transform of x in the given order (CZ_NTT_NAT / REV_IN / DIF), without the 1/n, tiles of 2^tile_log */
static void emu_transform_mode(const emu_domain *d, cz_fr *x, bool inverse, int order, unsigned tile_log)
{
    cz_ntt_plan pl;
    cz_d_ntt_plan(&pl, d->log_n, tile_log);
    cz_ntt_step st[CZ_NTT_STEPS_MAX];
    unsigned ns = 0;
    cz_d_ntt_program(st, &ns, x, &pl, order, inverse, NULL, NULL);
    emu_run(d, st, ns, tile_log);
}

enum { FWD = CZ_D_NTT_FWD, INV = CZ_D_NTT_INV, CFWD = CZ_D_NTT_COSET_FWD, CINV = CZ_D_NTT_COSET_INV };

/* czc_ntt of the given kind with tiles of 2^tile_log: the same program */
static void emu_ntt_tiles(const emu_domain *d, cz_fr *x, int kind, unsigned tile_log)
{
    cz_ntt_plan pl;
    cz_d_ntt_plan(&pl, d->log_n, tile_log);
    cz_d_coset_tabs tb = { d->g_lo, d->g_hi, d->gi_lo, d->gi_hi, d->n_inv };
    cz_ntt_step st[CZ_NTT_STEPS_MAX];
    unsigned ns = 0;
    cz_d_ntt_kind_program(st, &ns, x, &pl, kind, &tb);
    emu_run(d, st, ns, tile_log);
}

/* the replayed transforms of kinds kind_lo..kind_hi at 2^log_n with tiles
 * of 2^tile_log, each on fresh random input, against cz_ntt_* */
static void check_ntt(unsigned log_n, unsigned tile_log, int kind_lo, int kind_hi)
{
    static const char *names[] = { "forward", "inverse", "coset forward", "coset inverse" };
    uint64_t n = (uint64_t)1 << log_n;
    emu_domain d;
    emu_domain_build(&d, log_n);
    cz_ntt_domain *cd;
    assert_int_equal(cz_ntt_domain_create(&cd, log_n, NULL), CZ_OK);
    cz_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int kind = kind_lo; kind <= kind_hi; kind++) {
        for (uint64_t i = 0; i < n; i++) cz_rng_fr(&x[i]);
        memcpy(y, x, n * sizeof *x);
        emu_ntt_tiles(&d, x, kind, tile_log);
        switch (kind) {
        case FWD: cz_ntt_forward(NULL, cd, y); break;
        case INV: cz_ntt_inverse(NULL, cd, y); break;
        case CFWD: cz_ntt_coset_forward(NULL, cd, y); break;
        default: cz_ntt_coset_inverse(NULL, cd, y); break;
        }
        if (memcmp(x, y, n * sizeof *x))
            fail_msg("replayed NTT (%s, tiles of 2^%u) differs from the CPU's at 2^%u", names[kind], tile_log, log_n);
    }
    free(x);
    free(y);
    cz_ntt_domain_free(cd);
    emu_domain_free(&d);
}

/* the four kinds with the production tile, 2^0..2^NTT_MAX_LOG */
static void test_ntt(void **state)
{
    (void)state;
    for (unsigned log_n = 0; log_n <= NTT_MAX_LOG; log_n += (log_n < 4 ? 1 : 4))
        check_ntt(log_n, CZ_NTT_TILE_LOG, FWD, CINV);
}

/* The stage groups: every plan covers stages 0..log_n-1 once, in order;
 * tiles fit (k + r <= tile_log), runs stay below the group's first stage
 * (r <= s0, so a run of 2^r indices is contiguous and inside one
 * butterfly's low bits), and the production plan at 2^27 is three passes. */
static void test_ntt_plan(void **state)
{
    (void)state;
    cz_ntt_plan pl;
    for (unsigned tile = 2; tile <= 12; tile++)
        for (unsigned log_n = 0; log_n <= 31; log_n++) {
            cz_d_ntt_plan(&pl, log_n, tile);
            unsigned next = 0;
            for (unsigned gi = 0; gi < pl.ngroups; gi++) {
                const cz_ntt_group *g = &pl.g[gi];
                assert_int_equal(g->s0, next);
                assert_true(g->k >= 1 && g->k + g->r <= tile && g->r <= g->s0 && g->r <= CZ_NTT_RUN_LOG);
                next += g->k;
            }
            assert_int_equal(next, log_n);
        }
    cz_d_ntt_plan(&pl, 27, CZ_NTT_TILE_LOG);
    assert_int_equal(pl.ngroups, 3);
    assert_int_equal(pl.g[0].k, 11);
    assert_int_equal(pl.g[1].k, 9);
    assert_int_equal(pl.g[2].k, 7);
    assert_int_equal(pl.g[2].r, CZ_NTT_RUN_LOG);
    /* the tile's threads: a whole number of butterflies each per stage */
    assert_int_equal((1u << (CZ_NTT_TILE_LOG - 1)) % CZ_NTT_TILE_THREADS, 0);
}

/* small tiles (2^2 .. 2^6) give many groups, runs shorter than
 * CZ_NTT_RUN_LOG and tiles smaller than the threads: forward and inverse
 * against the CPU at every size up to 2^NTT_MAX_LOG; and 2^14 with the
 * production tile (two groups: 11 stages, then 3 with runs of 4) */
static void test_ntt_tiles(void **state)
{
    (void)state;
    for (unsigned tile = 2; tile <= 6; tile++)
        for (unsigned log_n = 0; log_n <= NTT_MAX_LOG; log_n += (tile == 2 ? 1 : 3)) check_ntt(log_n, tile, FWD, CINV);
#ifndef CUZK_SANITIZED
    check_ntt(14, CZ_NTT_TILE_LOG, CFWD, CFWD);
#endif
}

/* The DIF transform (and its inverse) leaves the DIT transform's output
 * in bit-reversed order; DIT from bit-reversed input equals DIT with its
 * permutation pass on the un-permuted array: with the production tile
 * and small ones, against the natural-order replay */
static void test_ntt_dif(void **state)
{
    (void)state;
    unsigned tiles[] = { CZ_NTT_TILE_LOG, 2, 3, 5 };
    for (size_t ti = 0; ti < sizeof tiles / sizeof *tiles; ti++)
        for (unsigned log_n = 1; log_n <= NTT_MAX_LOG; log_n += 1 + (log_n > 4)) {
            uint64_t n = (uint64_t)1 << log_n;
            emu_domain d;
            emu_domain_build(&d, log_n);
            cz_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
            for (int inv = 0; inv < 2; inv++) {
                for (uint64_t i = 0; i < n; i++) cz_rng_fr(&x[i]);
                memcpy(y, x, n * sizeof *x);
                memcpy(z, x, n * sizeof *x);
                emu_transform_mode(&d, x, inv, CZ_NTT_NAT, tiles[ti]);
                emu_transform_mode(&d, y, inv, CZ_NTT_DIF, tiles[ti]);
                for (uint64_t i = 0; i < n; i++) cz_d_ntt_bitrev(y, log_n, i);
                if (memcmp(x, y, n * sizeof *x))
                    fail_msg("DIF (tile 2^%u, %s) is not the bit-reversed DIT at 2^%u", tiles[ti],
                             inv ? "inverse" : "forward", log_n);
                for (uint64_t i = 0; i < n; i++) cz_d_ntt_bitrev(z, log_n, i);
                emu_transform_mode(&d, z, inv, CZ_NTT_REV_IN, tiles[ti]);
                if (memcmp(x, z, n * sizeof *x))
                    fail_msg("DIT from bit-reversed input (tile 2^%u) differs at 2^%u", tiles[ti], log_n);
            }
            free(x);
            free(y);
            free(z);
            emu_domain_free(&d);
        }
}

typedef struct {
    const emu_domain *d;
    unsigned tile_log;
} emu_part_ctx;

static bool emu_part(void *arg, const cz_ntt_step *st, unsigned ns)
{
    const emu_part_ctx *x = arg;
    assert_true(ns <= CZ_NTT_STEPS_MAX);
    emu_run(x->d, st, ns, x->tile_log);
    return true;
}

/* czc_quotient with tiles of 2^tile_log: the four parts of its program */
static void emu_quotient(const emu_domain *d, cz_fr *a, cz_fr *b, cz_fr *c, unsigned tile_log)
{
    cz_d_quotient_tabs tb = { d->s_lo, d->s_hi, d->si_lo, d->si_hi, d->n_inv, d->inv_2n };
    emu_part_ctx x = { d, tile_log };
    assert_true(cz_d_quotient_each(a, b, c, d->log_n, tile_log, &tb, emu_part, &x));
}

/* the quotient against cz_quotient_h with the production tile (one stage
 * group up to 2^11) and with small tiles, whose many groups put the fused
 * operations on separate launches: the coset scaling on the launch that
 * ends one transform and starts the next, a·b on a load, the combination
 * on a store */
static void test_quotient(void **state)
{
    (void)state;
    unsigned tiles[] = { CZ_NTT_TILE_LOG, 2, 3, 5 };
    for (size_t ti = 0; ti < sizeof tiles / sizeof *tiles; ti++)
        for (unsigned log_n = 1; log_n <= NTT_MAX_LOG; log_n += (ti == 0 ? 3 : 2)) {
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
            emu_quotient(&d, v[0], v[1], v[2], tiles[ti]);
            cz_quotient_h(NULL, cd, v[3], v[4], v[5]);
            if (memcmp(v[0], v[3], n * sizeof(cz_fr)))
                fail_msg("quotient (tile 2^%u) differs from cz_quotient_h at 2^%u", tiles[ti], log_n);
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

/* ---- replayed MSM: czc_msm_g1's launches, in its order, with its grid -------
 * Every launch of kernels.cu runs here as a loop over blockIdx and
 * threadIdx of the grid dev_launch.h gives, calling the same per-thread
 * body; the block scan runs phase by phase as separated by __syncthreads. */
#define REPLAY_1D(nthreads, tid, body)                                                     \
    do {                                                                                   \
        uint64_t blocks_ = cz_d_grid(nthreads);                                            \
        for (uint64_t bx_ = 0; bx_ < blocks_; bx_++)                                       \
            for (uint64_t tx_ = 0; tx_ < CZ_DEV_BLOCK; tx_++) {                            \
                uint64_t tid = bx_ * CZ_DEV_BLOCK + tx_;                                   \
                body;                                                                      \
            }                                                                              \
    } while (0)

/* k_msm_scan<<<nwin, CZ_MSM_SCAN_THREADS>>> */
static void replay_scan(uint32_t *cnt, uint32_t *cursor, uint32_t nb, unsigned nwin)
{
    uint32_t *sums = malloc(CZ_MSM_SCAN_THREADS * sizeof *sums), *local = malloc(CZ_MSM_SCAN_THREADS * sizeof *local);
    uint32_t *v = malloc(CZ_MSM_SCAN_THREADS * sizeof *v);
    for (unsigned b = 0; b < nwin; b++) {
        for (unsigned t = 0; t < CZ_MSM_SCAN_THREADS; t++) local[t] = cz_d_msm_scan_local(sums, cnt, nb, b, t);
        /* __syncthreads */
        for (unsigned off = 1; off < CZ_MSM_SCAN_THREADS; off <<= 1) {
            for (unsigned t = 0; t < CZ_MSM_SCAN_THREADS; t++) v[t] = cz_d_msm_scan_read(sums, t, off);
            /* __syncthreads */
            for (unsigned t = 0; t < CZ_MSM_SCAN_THREADS; t++) cz_d_msm_scan_add(sums, t, v[t]);
            /* __syncthreads */
        }
        for (unsigned t = 0; t < CZ_MSM_SCAN_THREADS; t++) cz_d_msm_scan_write(cnt, cursor, nb, sums, local[t], b, t);
    }
    free(sums);
    free(local);
    free(v);
}

/* fold(): log2(len) launches of k_fold */
static void replay_fold(cz_g1_xyzz *p, uint64_t len, uint64_t rows)
{
    for (uint64_t half = len / 2; half >= 1; half /= 2) REPLAY_1D(rows * half, t, cz_d_fold(p, len, half, rows, t));
}

/* what a replay saw: pieces over all chunks and windows, and partial
 * slots (pieces of buckets split over several threads) */
typedef struct {
    uint64_t pieces, slots;
} replay_stats;

/* czc_msm_g1 with cfg {window, chunk_log}; *plan_out receives the plan,
 * *stats (if not NULL) the piece counts */
static void replay_msm(cz_g1_jac *out, const cz_g1_affine *bases, const cz_scalar *sc, uint64_t n, unsigned window,
                       unsigned chunk_log, cz_msm_plan *plan_out, replay_stats *stats)
{
    cz_g1_jac_set_infinity(out);
    cz_msm_plan p;
    cz_d_msm_plan(&p, n, window, chunk_log);
    if (plan_out) *plan_out = p;
    if (!n) return;
    size_t nbk = (size_t)p.nwin * p.nb, ncnt = (size_t)p.nwin * (p.nb + 1);
    /* cudaMemsetAsync(buckets, 0): infinity is all-zero */
    cz_g1_xyzz *buckets = calloc(nbk, sizeof *buckets);
    uint32_t *cnt = malloc(ncnt * sizeof *cnt), *cursor = malloc(ncnt * sizeof *cursor);
    uint32_t *sorted = malloc((size_t)p.nwin * p.chunk * sizeof *sorted);
    uint32_t *pc = malloc(ncnt * sizeof *pc), *qc = malloc(ncnt * sizeof *qc);
    /* poisoned: a piece reading a slot no piece wrote shows */
    cz_g1_xyzz *partial = malloc((size_t)p.nwin * p.qmax * sizeof *partial);
    memset(partial, 0x5a, (size_t)p.nwin * p.qmax * sizeof *partial);
    cz_g1_xyzz *grp = malloc((size_t)p.nwin * p.G * sizeof *grp), *part = malloc(p.T * sizeof *part);
    assert_non_null(buckets);
    assert_non_null(sorted);

    REPLAY_1D(p.T, t, cz_d_msm_ones_thread(part, bases, sc, n, p.T, t));
    replay_fold(part, p.T, 1);
    for (uint64_t base = 0; base < n; base += p.chunk) {
        uint64_t len = n - base < p.chunk ? n - base : p.chunk;
        memset(cnt, 0, ncnt * sizeof *cnt);
        REPLAY_1D(len, i, cz_d_msm_count(sc + base, len, p.c, p.nwin, p.nb, cnt, i));
        replay_scan(cnt, cursor, p.nb, p.nwin);
        REPLAY_1D(len, i, cz_d_msm_scatter(sc + base, len, p.c, p.nwin, p.nb, cursor, sorted, p.chunk, i));
        REPLAY_1D(ncnt, i, cz_d_msm_pieces_count(pc, qc, cnt, p.nwin, p.nb, p.piece_log, i));
        replay_scan(pc, NULL, p.nb, p.nwin);
        replay_scan(qc, NULL, p.nb, p.nwin);
        /* Race-freedom of the piece launch (which a sequential replay cannot
         * see): a bucket is added to directly by at most one thread, i.e.
         * ceil(cnt / S) pieces, and partial slots for exactly the buckets
         * of two or more; and the bounds the driver sized its launch and
         * slots by. */
        for (unsigned w = 0; w < p.nwin; w++)
            for (uint32_t b = 0; b < p.nb; b++) {
                size_t r = (size_t)w * (p.nb + 1) + b;
                uint64_t c = cnt[r + 1] - cnt[r], want = (c + ((uint64_t)1 << p.piece_log) - 1) >> p.piece_log;
                assert_true(pc[r + 1] - pc[r] == want);
                assert_true(qc[r + 1] - qc[r] == (want > 1 ? want : 0));
            }
        for (unsigned w = 0; w < p.nwin; w++) {
            uint64_t np = pc[(size_t)w * (p.nb + 1) + p.nb], nq = qc[(size_t)w * (p.nb + 1) + p.nb];
            assert_true(np <= p.pmax);
            assert_true(nq <= p.qmax);
            if (stats) {
                stats->pieces += np;
                stats->slots += nq;
            }
        }
        REPLAY_1D((uint64_t)p.nwin * p.pmax, i,
                  cz_d_msm_piece(buckets, partial, sorted, cnt, pc, qc, bases + base, &p, p.chunk, i));
        REPLAY_1D(nbk, i, cz_d_msm_merge(buckets, partial, qc, &p, i));
    }
    REPLAY_1D((uint64_t)p.nwin * p.G, i, cz_d_msm_reduce(grp, buckets, p.nwin, p.nb, p.G, i));
    replay_fold(grp, p.G, p.nwin);
    /* the host side: cudaMemcpy2DAsync of each window's group 0, Horner */
    cz_g1_xyzz *win = malloc(p.nwin * sizeof *win), res;
    for (unsigned w = 0; w < p.nwin; w++) win[w] = grp[(size_t)w * p.G];
    cz_d_msm_combine(&res, win, p.nwin, p.c, &part[0]);
    cz_g1_xyzz_to_jac(out, &res);
    free(win);
    free(part);
    free(grp);
    free(sorted);
    free(pc);
    free(qc);
    free(partial);
    free(cursor);
    free(cnt);
    free(buckets);
}

/* distinct affine bases P0 + i·Q (one addition each), a few special ones */
static cz_g1_affine *make_bases(size_t n)
{
    cz_g1_jac g, p, q, *j = malloc(n * sizeof *j);
    cz_g1_affine *a = malloc(n * sizeof *a);
    uint64_t k1[4] = { cz_rng_u64(), cz_rng_u64(), cz_rng_u64(), cz_rng_u64() >> 3 };
    uint64_t k2[4] = { cz_rng_u64(), cz_rng_u64(), cz_rng_u64(), cz_rng_u64() >> 3 };
    cz_g1_generator_jac(&g);
    cz_g1_jac_mul_var(&p, &g, k1, 4);
    cz_g1_jac_mul_var(&q, &g, k2, 4);
    for (size_t i = 0; i < n; i++) {
        j[i] = p;
        cz_g1_jac_add_var(&p, &p, &q);
    }
    cz_g1_batch_to_affine(a, j, n);
    free(j);
    if (n > 9) {
        cz_g1_affine_set_infinity(&a[5]);
        a[9] = a[8]; /* equal points: the doubling case inside a bucket */
    }
    return a;
}

enum { MIX_RANDOM, MIX_SKEWED };
/* MIX_SKEWED: a quarter random, the rest drawn from 20 values (0, 1, 2,
 * r - 1 and 16 fixed random ones), so that their buckets hold many points */
static void make_scalars(cz_scalar *sc, size_t n, int mix)
{
    cz_scalar vals[20];
    memset(vals, 0, sizeof vals);
    vals[1].l[0] = 1;
    vals[2].l[0] = 2;
    memcpy(vals[3].l, CZ_FR_MODULUS, sizeof vals[3].l);
    vals[3].l[0] -= 1; /* r - 1 */
    for (int k = 4; k < 20; k++) rand_scalar(&vals[k]);
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(cz_rng_u64() % 80);
        if (mix == MIX_RANDOM || r < 20) rand_scalar(&sc[i]);
        else sc[i] = vals[r % 20];
    }
    if (n > 9) sc[8] = sc[9];
}

/* replay == CPU MSM, as canonical affine bytes */
static void check_replay_stats(const cz_g1_affine *bases, const cz_scalar *sc, size_t n, unsigned window,
                               unsigned chunk_log, replay_stats *stats)
{
    cz_g1_jac ref, got;
    cz_g1_affine ra, ga;
    assert_int_equal(cz_msm_g1(&ref, bases, sc, n, NULL, NULL), CZ_OK);
    cz_msm_plan p;
    replay_msm(&got, bases, sc, n, window, chunk_log, &p, stats);
    cz_g1_jac_to_affine(&ra, &ref);
    cz_g1_jac_to_affine(&ga, &got);
    if (memcmp(&ra, &ga, sizeof ra))
        fail_msg("replayed MSM differs from cz_msm_g1: n=%zu c=%u chunk=%llu G=%u", n, p.c,
                 (unsigned long long)p.chunk, p.G);
}

static void check_replay(const cz_g1_affine *bases, const cz_scalar *sc, size_t n, unsigned window, unsigned chunk_log)
{
    check_replay_stats(bases, sc, n, window, chunk_log, NULL);
}

/* the plan the drivers use: window choice, groups, chunking, ones threads */
static void test_msm_plan(void **state)
{
    (void)state;
    cz_msm_plan p;
    cz_d_msm_plan(&p, (uint64_t)1 << 26, 0, 0);
    assert_int_equal(p.c, 20);
    assert_int_equal(p.nwin, 13);
    assert_int_equal(p.nb, 1u << 19);
    assert_int_equal(p.G, 8192); /* 64 buckets a group */
    assert_true(p.chunk == (uint64_t)1 << 24);
    assert_true(p.T == 16384);
    /* pieces of 2^12 = sqrt(2^24) entries; 2^12 + 2^19 piece threads and
     * 2^13 partial slots per window */
    assert_int_equal(p.piece_log, 12);
    assert_true(p.pmax == 4096 + (1u << 19) && p.qmax == 8192);
    cz_d_msm_plan(&p, (uint64_t)1 << 20, 0, 0);
    assert_int_equal(p.c, 16);
    assert_int_equal(p.G, 1024);
    assert_int_equal(p.piece_log, 10); /* the chunk is the 2^20 points */
    assert_true(p.pmax == 1024 + 32768 && p.qmax == 2048);
    cz_d_msm_plan(&p, 100, 16, 0); /* n < groups */
    assert_int_equal(p.G, 1024);
    assert_true(p.chunk == 100 && p.T == 64);
    cz_d_msm_plan(&p, 4096, 0, 10);
    assert_int_equal(p.c, 8);
    assert_int_equal(p.G, 128);
    assert_true(p.chunk == 1024);
    for (unsigned lg = 0; lg < 40; lg++) {
        unsigned c = cz_d_msm_window((uint64_t)1 << lg);
        /* below 2^21: log2 n - 4 in 4..16; then the fewest additions,
         * ceil(256/c)·(n + 2^c) over c = 16..20 (computed by hand) */
        unsigned want = lg < 8 ? 4 : lg <= 20 ? (lg - 4 < 16 ? lg - 4 : 16) : lg == 21 ? 16 : lg == 22 ? 19 : 20;
        assert_int_equal(c, want);
        cz_d_msm_plan(&p, (uint64_t)1 << lg, 0, 0);
        assert_int_equal(p.nb % p.G, 0);
        assert_true(p.nb / p.G <= CZ_MSM_GROUP_BUCKETS || p.G == CZ_MSM_GROUPS_MAX);
    }
}

/* the block scan, replayed phase by phase, vs a sequential exclusive scan,
 * for windows whose nb + 1 counts are fewer and more than the block's
 * threads (segments of one and of several entries) */
static void test_msm_scan(void **state)
{
    (void)state;
    unsigned cs[] = { 1, 4, 10, 11, 12, 16, 20 };
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        uint32_t nb = 1u << (cs[k] - 1);
        unsigned nwin = 3;
        size_t ncnt = (size_t)nwin * (nb + 1);
        uint32_t *cnt = malloc(ncnt * sizeof *cnt), *cur = malloc(ncnt * sizeof *cur), *ref = malloc(ncnt * sizeof *ref);
        for (size_t i = 0; i < ncnt; i++) cnt[i] = (i % (nb + 1)) == nb ? 0 : (uint32_t)(cz_rng_u64() % 5);
        for (unsigned w = 0; w < nwin; w++) {
            uint32_t run = 0;
            for (uint32_t b = 0; b <= nb; b++) {
                ref[(size_t)w * (nb + 1) + b] = run;
                run += cnt[(size_t)w * (nb + 1) + b];
            }
        }
        replay_scan(cnt, cur, nb, nwin);
        assert_memory_equal(cnt, ref, ncnt * sizeof *cnt);
        assert_memory_equal(cur, ref, ncnt * sizeof *cur);
        free(cnt);
        free(cur);
        free(ref);
    }
}

/* every window the driver can choose (4..16), 16 included, on random and
 * skewed scalars; the default chunk holds all points */
static void test_msm_windows(void **state)
{
    (void)state;
    size_t n = MSM_N;
    cz_g1_affine *bases = make_bases(n);
    cz_scalar *sc = malloc(n * sizeof *sc);
    for (unsigned c = 4; c <= 16; c += MSM_WSTEP) {
        make_scalars(sc, n, c % 2 ? MIX_SKEWED : MIX_RANDOM);
        check_replay(bases, sc, n, c, 0);
    }
    /* c = 1 and the chosen window; window 16 with fewer points than groups */
    make_scalars(sc, n, MIX_SKEWED);
    check_replay(bases, sc, n, 1, 0);
    check_replay(bases, sc, n, 0, 0);
    check_replay(bases, sc, 100, 16, 0);
    check_replay(bases, sc, 1, 16, 0);
#ifndef CUZK_SANITIZED
    /* window 18: 2^17 buckets in 2048 groups of 64 (the plan's large
     * windows reduce in more than 1024 groups) */
    cz_msm_plan p18;
    cz_d_msm_plan(&p18, n, 18, 0);
    assert_int_equal(p18.G, 2048);
    check_replay(bases, sc, n, 18, 0);
#endif
    free(bases);
    free(sc);
}

/* window 16, 1024 groups, many points per bucket: skewed scalars over
 * MSM_BIG points put ~MSM_BIG/80 points into each of the fixed values'
 * buckets in every window */
static void test_msm_w16_skewed(void **state)
{
    (void)state;
    size_t n = MSM_BIG;
    cz_g1_affine *bases = make_bases(n);
    cz_scalar *sc = malloc(n * sizeof *sc);
    make_scalars(sc, n, MIX_SKEWED);
    cz_msm_plan p;
    cz_d_msm_plan(&p, n, 16, 0);
    assert_int_equal(p.G, 1024);
    check_replay(bases, sc, n, 16, 0);
    free(bases);
    free(sc);
}

/* One value for (nearly) every scalar: every window's points fall into one
 * or two buckets, which the accumulation must split over many piece
 * threads (the case that serialised a whole chunk on one thread before);
 * window 16 and a small window, one chunk and chunks of 2^10, each
 * against the CPU, and the split is seen to happen. */
static void test_msm_one_bucket(void **state)
{
    (void)state;
    size_t n = MSM_BIG;
    cz_g1_affine *bases = make_bases(n);
    cz_scalar *sc = malloc(n * sizeof *sc), v, u;
    rand_scalar(&v);
    rand_scalar(&u);
    for (size_t i = 0; i < n; i++) sc[i] = i % 97 == 3 ? u : v;
    sc[7].l[0] = 1;
    memset(&sc[11], 0, sizeof sc[11]);
    unsigned ws[] = { 16, 6 }, cls[] = { 0, MSM_CHUNK_LOG };
    for (size_t a = 0; a < 2; a++)
        for (size_t b = 0; b < 2; b++) {
            replay_stats st = { 0, 0 };
            check_replay_stats(bases, sc, n, ws[a], cls[b], &st);
            cz_msm_plan p;
            cz_d_msm_plan(&p, n, ws[a], cls[b]);
            /* about n / 2^piece_log pieces per window, nearly all partial */
            if (st.slots < (uint64_t)p.nwin * (n >> p.piece_log) / 2)
                fail_msg("window %u chunk 2^%u: %llu partial slots, buckets not split", ws[a], cls[b],
                         (unsigned long long)st.slots);
        }
    free(bases);
    free(sc);
}

/* several chunks: chunks of 2^10 over 2^12 (+ a partial last chunk) points;
 * buckets persist across chunks as on the device (the replay must give
 * the CPU's sum) */
static void test_msm_chunks(void **state)
{
    (void)state;
    size_t n = MSM_CHUNKED + 100;
    cz_g1_affine *bases = make_bases(n);
    cz_scalar *sc = malloc(n * sizeof *sc);
    make_scalars(sc, n, MIX_SKEWED);
    unsigned cs[] = { 0, 16, 5 };
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        check_replay(bases, sc, MSM_CHUNKED, cs[k], MSM_CHUNK_LOG);
        check_replay(bases, sc, n, cs[k], MSM_CHUNK_LOG);
    }
    cz_msm_plan p;
    cz_d_msm_plan(&p, n, 0, MSM_CHUNK_LOG);
    assert_true(p.chunk == (uint64_t)1 << MSM_CHUNK_LOG && (n + p.chunk - 1) / p.chunk >= 4);
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
        cmocka_unit_test(test_ntt_plan),
        cmocka_unit_test(test_ntt_tiles),
        cmocka_unit_test(test_ntt_dif),
        cmocka_unit_test(test_quotient),
        cmocka_unit_test(test_digits),
        cmocka_unit_test(test_msm_plan),
        cmocka_unit_test(test_msm_scan),
        cmocka_unit_test(test_msm_windows),
        cmocka_unit_test(test_msm_w16_skewed),
        cmocka_unit_test(test_msm_chunks),
        cmocka_unit_test(test_msm_one_bucket),
        cmocka_unit_test(test_gather),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
