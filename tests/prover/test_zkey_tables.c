/*
 * MSM tables of a snarkjs .zkey (src/prover/zkey_tables.c,
 * cz_snarkjs_prove_tables): the proof made with tables is byte-identical
 * to the one made without for fixed r, s; a table file is written once and
 * mapped back by later loads; a file that does not check out (a damaged
 * header, another key's bases) is named and rebuilt; and a damaged point,
 * which the load does not look for, costs a second proof, never a wrong
 * one: the proof made with it fails its check, the one made without
 * passes, and the caller is told.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/circuits.h"
#include "cuzk/prover.h"
#include "cuzk/snarkjs.h"

static char dir[64];
static char path[128];
static cz_pool *pool;
static cz_snarkjs_zkey *Z, *Z2; /* two setups of one circuit: same counts, other bases */
static cz_fr *W;                /* the witness, every signal */
static size_t NW;
static cz_fr rs[2];
static cz_groth16_proof_pts ref; /* proved without tables, rs fixed */
static cz_groth16_tables_plan plan;

static cz_snarkjs_zkey *make_zkey(const cz_pce *pce)
{
    cz_errbuf e = {{0}};
    cz_groth16_params *p;
    cz_g1_affine *h_odd = NULL;
    cz_groth16_setup_opts so = {.h_odd_out = &h_odd};
    if (cz_groth16_setup(&p, pce, pool, &so, &e) != CZ_OK) return NULL;
    cz_snarkjs_zkey *z = NULL;
    if (cz_snarkjs_zkey_from_params(&z, p, pce, h_odd, &e) != CZ_OK) z = NULL;
    free(h_odd);
    cz_groth16_params_free(p);
    return z;
}

/* mulchain-3000 with two extra inputs: ~4,096 H bases and ~3,000 in each
 * other query, given explicit shapes (the planner plans none this small):
 * a different one per query, so that every kind is exercised. */
static int setup(void **state)
{
    (void)state;
    if (cz_test_dir_make(dir, sizeof dir, "cz_zkt_") != 0) return -1;
    snprintf(path, sizeof path, "%s/c.zkey.tables", dir);
    if (cz_pool_create(&pool, 2, "zkt") != CZ_OK) return -1;
    cz_mulchain mc = {.n_mul = 3000, .n_extra_inputs = 2};
    cz_rng_fr(&mc.x0);
    cz_pce *pce;
    cz_witness w;
    if (cz_pce_record(&pce, cz_mulchain_synth, &mc, &w) != CZ_OK) return -1;
    Z = make_zkey(pce);
    Z2 = make_zkey(pce);
    NW = w.n_inputs + w.n_aux;
    W = malloc(NW * sizeof *W);
    if (!Z || !Z2 || !W) return -1;
    memcpy(W, w.inputs, w.n_inputs * sizeof *W);
    memcpy(W + w.n_inputs, w.aux, w.n_aux * sizeof *W);
    cz_witness_free(&w);
    cz_pce_free(pce);
    const void *b[CZ_GROTH16_NQ];
    cz_snarkjs_zkey_tables_bases(Z, b, plan.n);
    static const unsigned t[CZ_GROTH16_NQ] = {8, 16, 8, 4, 8}, bits[CZ_GROTH16_NQ] = {32, 16, 32, 64, 32};
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        plan.t[q] = t[q];
        plan.bits[q] = bits[q];
    }
    cz_rng_fr(&rs[0]);
    cz_rng_fr(&rs[1]);
    cz_errbuf e = {{0}};
    return cz_snarkjs_prove(&ref, Z, W, NW, pool, rs, &e) == CZ_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cz_snarkjs_zkey_free(Z);
    cz_snarkjs_zkey_free(Z2);
    free(W);
    cz_pool_destroy(pool);
    return cz_test_dir_remove(dir);
}

static void prove_with(const cz_groth16_tables *t, bool expect_bad)
{
    cz_errbuf e = {{0}};
    cz_groth16_proof_pts p;
    bool bad = !expect_bad;
    /* every phase's time is written: each phase does work (thousands of
     * points and values), so a field left at 0 or -1 was never set */
    cz_snarkjs_prove_timings tm;
    double *f = (double *)&tm;
    for (size_t i = 0; i < sizeof tm / sizeof(double); i++) f[i] = -1;
    if (cz_snarkjs_prove_tables(&p, Z, t, W, NW, pool, rs, &bad, &tm, &e) != CZ_OK) fail_msg("prove: %s", e.msg);
    assert_int_equal(bad, expect_bad);
    assert_memory_equal(&p, &ref, sizeof p);
    for (size_t i = 0; i < sizeof tm / sizeof(double); i++) assert_true(f[i] > 0);
}

static void flip(const char *p, off_t at)
{
    int fd = open(p, O_RDWR);
    assert_true(fd >= 0);
    uint8_t c;
    assert_int_equal(pread(fd, &c, 1, at), 1);
    c ^= 1;
    assert_int_equal(pwrite(fd, &c, 1, at), 1);
    close(fd);
}

/* A new table file of Z by plan at path. */
static void fresh_file(void)
{
    cz_errbuf e = {{0}};
    cz_zkey_tables_info ti;
    cz_groth16_tables *t;
    unlink(path);
    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, &plan, true, pool, &ti, &e), CZ_OK);
    assert_true(ti.built && ti.written);
    cz_groth16_tables_free(t);
}

/* Built tables, every query with its own shape, give the very proof; a
 * set over another number of bases than the key's is refused. */
static void test_same_proof(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    const void *b[CZ_GROTH16_NQ];
    size_t n[CZ_GROTH16_NQ];
    cz_snarkjs_zkey_tables_bases(Z, b, n);
    cz_groth16_tables *t;
    assert_int_equal(cz_groth16_tables_build(&t, &plan, b, pool, &e), CZ_OK);
    assert_non_null(t);
    prove_with(t, false);
    prove_with(NULL, false);
    cz_groth16_tables_free(t);

    /* A's set over one base fewer than the key's A */
    cz_groth16_tables_plan short_a = {0};
    short_a.n[CZ_GROTH16_Q_A] = n[CZ_GROTH16_Q_A] - 1;
    short_a.t[CZ_GROTH16_Q_A] = 8;
    short_a.bits[CZ_GROTH16_Q_A] = 32;
    assert_int_equal(cz_groth16_tables_build(&t, &short_a, b, pool, &e), CZ_OK);
    cz_groth16_proof_pts p;
    bool bad;
    assert_int_equal(cz_snarkjs_prove_tables(&p, Z, t, W, NW, pool, rs, &bad, NULL, &e), CZ_ERR_MISMATCH);
    assert_non_null(strstr(e.msg, "bases"));
    cz_groth16_tables_free(t);
}

/* The first load builds and keeps the file, the second maps it; without
 * build and without a file, no tables and no error. */
static void test_file_built_then_mapped(void **state)
{
    (void)state;
    unlink(path);
    cz_errbuf e = {{0}};
    cz_zkey_tables_info ti;
    cz_groth16_tables *t;
    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, &plan, false, pool, &ti, &e), CZ_OK);
    assert_null(t);
    assert_false(ti.mapped || ti.built);
    assert_string_equal(ti.why, ""); /* a missing file is no problem to report */

    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, &plan, true, pool, &ti, &e), CZ_OK);
    assert_true(ti.built && ti.written && !ti.mapped);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    prove_with(t, false);
    cz_groth16_tables_free(t);

    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, NULL, false, pool, &ti, &e), CZ_OK);
    assert_true(ti.mapped && !ti.built);
    assert_non_null(t);
    /* the file: a 4 KiB header, tables 1..t-1 of each query, a digest */
    uint64_t pts = 0;
    for (int q = 0; q < CZ_GROTH16_NQ; q++)
        pts += (uint64_t)(plan.t[q] - 1) * plan.n[q] *
               (q == CZ_GROTH16_Q_B_G2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine));
    assert_int_equal((uint64_t)sb.st_size, 4096 + pts + 32);
    prove_with(t, false);
    cz_groth16_tables_free(t);

    /* a plan that does not fit the key is refused, naming it */
    cz_groth16_tables_plan bad = plan;
    bad.n[CZ_GROTH16_Q_H]++;
    unlink(path);
    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, &bad, true, pool, &ti, &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "bases"));
    assert_null(t);
}

/* A damaged header, or a file of another key's bases, is named and
 * rebuilt, and the rebuilt file then maps. */
static void test_stale_file_rebuilt(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    cz_zkey_tables_info ti;
    cz_groth16_tables *t;
    fresh_file();

    flip(path, 8); /* the version */
    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, &plan, true, pool, &ti, &e), CZ_OK);
    assert_non_null(strstr(ti.why, path));
    assert_non_null(strstr(ti.why, "version"));
    assert_true(ti.built && ti.written);
    prove_with(t, false);
    cz_groth16_tables_free(t);

    /* Z2's bases: the same counts, so only the bases digest tells */
    assert_int_equal(cz_prover_zkey_tables(&t, Z2, path, 0, &plan, false, pool, &ti, &e), CZ_OK);
    assert_null(t);
    assert_non_null(strstr(ti.why, "other bases"));
    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, NULL, false, pool, &ti, &e), CZ_OK);
    assert_true(ti.mapped); /* not replaced by a load that did not build */
    cz_groth16_tables_free(t);
}

/* A flipped bit in a point (the load reads no whole-file digest): the
 * proof made with it fails its check, the one made without passes, and
 * *tables_bad says so. A witness that does not satisfy the circuit fails
 * both, and the tables are not blamed. */
static void test_bad_point_costs_a_proof(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    cz_zkey_tables_info ti;
    cz_groth16_tables *t;
    fresh_file();
    /* bit 0 of the x of H's table-1 point 10: the first query's points
     * follow the 4 KiB header */
    flip(path, 4096 + 10 * (off_t)sizeof(cz_g1_affine));
    assert_int_equal(cz_prover_zkey_tables(&t, Z, path, 0, NULL, false, pool, &ti, &e), CZ_OK);
    assert_true(ti.mapped);
    prove_with(t, true);

    cz_fr_add(&W[NW - 1], &W[NW - 1], &CZ_FR_ONE);
    cz_groth16_proof_pts p;
    bool bad = true;
    assert_int_equal(cz_snarkjs_prove_tables(&p, Z, t, W, NW, pool, rs, &bad, NULL, &e), CZ_ERR_UNSATISFIED);
    assert_false(bad);
    assert_non_null(strstr(e.msg, "does not satisfy"));
    cz_fr_sub(&W[NW - 1], &W[NW - 1], &CZ_FR_ONE);
    cz_groth16_tables_free(t);
}

/* The plan leaves out a query whose bases are mostly at infinity (a key
 * of 8,192 signals, every finite base the generator: the plan reads the
 * bases only for being at infinity or not). */
static void test_plan_skips_infinite_queries(void **state)
{
    (void)state;
    enum { NV = 8192 };
    cz_snarkjs_zkey k = {.n_vars = NV, .n_public = 1, .domain_size = NV};
    k.a = calloc(NV, sizeof *k.a);
    k.b1 = calloc(NV, sizeof *k.b1);
    k.b2 = calloc(NV, sizeof *k.b2);
    k.c = calloc(NV, sizeof *k.c);
    k.h = calloc(NV, sizeof *k.h);
    assert_true(k.a && k.b1 && k.b2 && k.c && k.h);
    /* A, C, H finite everywhere; B1 finite at 4,095 of 8,192 (one short of
     * half), B2 at half: B1 is left out, B2 kept */
    cz_g1_affine pt;
    cz_g2_affine pt2;
    cz_g1_generator(&pt);
    cz_g2_generator(&pt2);
    for (size_t i = 0; i < NV; i++) {
        k.a[i] = k.c[i] = k.h[i] = pt;
        cz_g1_affine_set_infinity(&k.b1[i]);
        cz_g2_affine_set_infinity(&k.b2[i]);
        if (i < NV / 2 - 1) k.b1[i] = pt;
        if (i < NV / 2) k.b2[i] = pt2;
    }
    cz_groth16_tables_plan pl;
    cz_prover_zkey_tables_plan(&pl, &k, (uint64_t)1 << 32, pool);
    assert_true(pl.t[CZ_GROTH16_Q_H] > 0);
    assert_true(pl.t[CZ_GROTH16_Q_A] > 0);
    assert_int_equal(pl.t[CZ_GROTH16_Q_B_G1], 0);
    assert_true(pl.t[CZ_GROTH16_Q_B_G2] > 0);
    assert_int_equal(pl.n[CZ_GROTH16_Q_A], NV);
    assert_int_equal(pl.n[CZ_GROTH16_Q_B_G2], NV);
    /* B1 finite at half too: now kept */
    k.b1[NV / 2 - 1] = pt;
    cz_prover_zkey_tables_plan(&pl, &k, (uint64_t)1 << 32, pool);
    assert_true(pl.t[CZ_GROTH16_Q_B_G1] > 0);
    free(k.a);
    free(k.b1);
    free(k.b2);
    free(k.c);
    free(k.h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_proof),
        cmocka_unit_test(test_file_built_then_mapped),
        cmocka_unit_test(test_stale_file_rebuilt),
        cmocka_unit_test(test_bad_point_costs_a_proof),
        cmocka_unit_test(test_plan_skips_infinite_queries),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
