/*
 * MSM table files (src/prover/tables_file.c): a written file maps back to
 * the very points that were built, and the proof made with them is
 * byte-identical for fixed r, s; a file whose digests use other pieces
 * (their size is the header's) maps back too; every way a file can be wrong (a flipped
 * byte anywhere, a short file, another plan, other bases, a missing file)
 * is refused with an error naming it, and leaves the parameters as they
 * were.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "cuzk/circuits.h"
#include "groth16/groth16_internal.h"
#include "prover/prover_internal.h"

static char dir[64];
static char path[128];
static cz_pool *pool;
static cz_pce *pce;
static cz_mulchain mc;
static cz_groth16_params *P;
static cz_groth16_tables_plan plan;
static void *built[CZ_GROTH16_NQ]; /* copies of the built tables' points */
static size_t built_bytes[CZ_GROTH16_NQ];
static uint8_t proof_built[CZ_GROTH16_PROOF_BYTES];
static cz_fr rs[2];

static void prove(const cz_groth16_params *p, uint8_t proof[CZ_GROTH16_PROOF_BYTES])
{
    size_t m = cz_groth16_params_domain(p);
    cz_witness w;
    cz_groth16_input in = {malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), m, &w};
    assert_int_equal(cz_synthesize(pce, cz_mulchain_synth, &mc, pool, &w, in.a, in.b, in.c, m), CZ_OK);
    cz_errbuf e = {{0}};
    if (cz_groth16_prove(p, pce, &in, pool, rs, proof, NULL, &e) != CZ_OK) fail_msg("prove: %s", e.msg);
    cz_witness_free(&w);
}

/* mulchain-5000: 8,191 H bases and ~5,000 in each other query, so every
 * query gets tables. */
static int setup(void **state)
{
    (void)state;
    if (cz_test_dir_make(dir, sizeof dir, "cz_tabf_") != 0) return -1;
    snprintf(path, sizeof path, "%s/t.tables", dir);
    if (cz_pool_create(&pool, 2, "tabf") != CZ_OK) return -1;
    mc.n_mul = 5000;
    cz_fr_from_u64(&mc.x0, 3);
    cz_errbuf e = {{0}};
    if (cz_pce_record(&pce, cz_mulchain_synth, &mc, NULL) != CZ_OK) return -1;
    if (cz_groth16_setup(&P, pce, pool, NULL, &e) != CZ_OK) return -1;
    cz_groth16_tables_plan_for(&plan, pce, 1ull << 32, pool);
    if (cz_groth16_params_build_tables(P, pce, 1ull << 32, pool, &e) != CZ_OK) return -1;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        size_t n;
        unsigned t, bits;
        const void *pts = cz_groth16_params_tables_points(P, q, &n, &t, &bits);
        if (!pts || t < 2) return -1;
        built_bytes[q] = (size_t)(t - 1) * n * (q == CZ_GROTH16_Q_B_G2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine));
        built[q] = malloc(built_bytes[q]);
        memcpy(built[q], pts, built_bytes[q]);
    }
    cz_rng_fr(&rs[0]);
    cz_rng_fr(&rs[1]);
    prove(P, proof_built);
    if (cz__tables_file_write(path, P, pce, pool, &e) != CZ_OK) return -1;
    /* the parameters without tables from here (a limit nothing fits) */
    return cz_groth16_params_build_tables(P, pce, 1000, pool, &e) == CZ_OK && !P->tables ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) free(built[q]);
    cz_groth16_params_free(P);
    cz_pce_free(pce);
    cz_pool_destroy(pool);
    return cz_test_dir_remove(dir);
}

/* Maps file f into P and expects st, with want in the message; on a
 * refusal P keeps no tables. */
static void map_expect(const char *f, const cz_groth16_tables_plan *pl, cz_status st, const char *want)
{
    cz_errbuf e = {{0}};
    cz_status got = cz__tables_file_map(f, P, pce, pl, pool, &e);
    if (got != st) fail_msg("%s: status %d (%s), expected %d", f, got, e.msg, st);
    if (want && !strstr(e.msg, want)) fail_msg("%s: message '%s' lacks '%s'", f, e.msg, want);
    if (st != CZ_OK) {
        assert_null(P->tables);
        assert_non_null(strstr(e.msg, f)); /* the file is named */
    }
}

static void drop_tables(void)
{
    cz_errbuf e = {{0}};
    assert_int_equal(cz_groth16_params_build_tables(P, pce, 1000, pool, &e), CZ_OK);
    assert_null(P->tables);
}

static void maps_back_what_was_built(void **state)
{
    (void)state;
    map_expect(path, &plan, CZ_OK, NULL);
    assert_int_equal(cz_groth16_params_tables_bytes(P), plan.bytes);
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        size_t n;
        unsigned t, bits;
        const void *pts = cz_groth16_params_tables_points(P, q, &n, &t, &bits);
        assert_int_equal(t, plan.t[q]);
        assert_int_equal(bits, plan.bits[q]);
        assert_int_equal(n, plan.n[q]);
        assert_memory_equal(pts, built[q], built_bytes[q]);
    }
    uint8_t proof[CZ_GROTH16_PROOF_BYTES];
    prove(P, proof);
    assert_memory_equal(proof, proof_built, sizeof proof);
    drop_tables(); /* unmaps (ASan, valgrind: nothing left) */
}

/* A copy of the file with byte `at` (from the end when negative) xor'ed
 * with mask. */
static void copy_xor(const char *to, long at, uint8_t mask)
{
    size_t n;
    uint8_t *b = cz_read_file(path, &n);
    assert_non_null(b);
    const long len = (long)n;
    if (at < 0) at += len;
    b[at] ^= mask;
    FILE *f = fopen(to, "wb");
    assert_int_equal(fwrite(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    free(b);
}

static void copy_flipped(const char *to, long at) { copy_xor(to, at, 0x10); }

static void refuses_a_flipped_byte(void **state)
{
    (void)state;
    char f[160];
    snprintf(f, sizeof f, "%s/flip.tables", dir);
    /* a point in the middle of H's tables, the last point byte, the digest */
    const long points[] = {4096 + 1000 * 96 + 17, -33, -1};
    for (size_t i = 0; i < sizeof points / sizeof *points; i++) {
        copy_flipped(f, points[i]);
        map_expect(f, &plan, CZ_ERR_FORMAT, "digest mismatch");
    }
    copy_flipped(f, 0); /* the magic */
    map_expect(f, &plan, CZ_ERR_FORMAT, "magic");
    copy_flipped(f, 8); /* the version */
    map_expect(f, &plan, CZ_ERR_FORMAT, "version");
    copy_flipped(f, 3000); /* the header's zeros */
    map_expect(f, &plan, CZ_ERR_FORMAT, "header byte 3000");
    copy_flipped(f, 32); /* where A's tabled bases start (the input count) */
    map_expect(f, &plan, CZ_ERR_MISMATCH, "other inputs");
    copy_flipped(f, 128 + 5); /* the bases' digest */
    map_expect(f, &plan, CZ_ERR_MISMATCH, "other bases");
    copy_flipped(f, 48 + 12); /* H's bits per table: no longer the plan */
    map_expect(f, &plan, CZ_ERR_MISMATCH, "query H");
    /* B_G2's base count, one bit of its low byte set (more points than the
     * file holds) or cleared (fewer: bytes left over before the digest) */
    uint8_t low = (uint8_t)plan.n[CZ_GROTH16_Q_B_G2];
    uint8_t zero_bit = (uint8_t)(~low & (low + 1)), one_bit = (uint8_t)(low & -low);
    assert_true(zero_bit && one_bit);
    copy_xor(f, 48 + 16 * 4, zero_bit);
    map_expect(f, &plan, CZ_ERR_TRUNCATED, "query B_G2");
    copy_xor(f, 48 + 16 * 4, one_bit);
    map_expect(f, &plan, CZ_ERR_FORMAT, "the tables and the digest take");
    unlink(f);
}

/* The format's chunked digest, written here from its description (the
 * SHA-256 of the concatenated SHA-256s of consecutive `chunk`-byte pieces
 * of the spans' bytes), independently of tables_file.c. */
static void chunked_sha256(const uint8_t *const *p, const size_t *n, size_t nsp, size_t chunk, uint8_t out[32])
{
    size_t total = 0;
    for (size_t s = 0; s < nsp; s++) total += n[s];
    uint8_t *joined = malloc(total ? total : 1), *digests = malloc(32 * (total / chunk + 1));
    assert_non_null(joined);
    assert_non_null(digests);
    for (size_t s = 0, at = 0; s < nsp; at += n[s], s++) memcpy(joined + at, p[s], n[s]);
    size_t k = 0;
    for (size_t from = 0; from < total; from += chunk, k++)
        SHA256(joined + from, total - from < chunk ? total - from : chunk, digests + 32 * k);
    SHA256(digests, 32 * k, out);
    free(joined);
    free(digests);
}

/* A file whose digests use another piece size (as an earlier writer's
 * 16 MiB ones did) maps back as long as the size is a power of two from
 * 64 KiB to 1 GiB: the reader takes the size the header records. The
 * file is rewritten here with both digests made for that size. */
static void accepts_other_digest_pieces(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = cz_read_file(path, &n);
    assert_non_null(b);
    const long len = (long)n;
    FILE *f;
    const void *qb[CZ_GROTH16_NQ];
    cz_groth16_params_tables_bases(P, pce, qb);
    const uint8_t *bp[CZ_GROTH16_NQ];
    size_t bn[CZ_GROTH16_NQ], nb = 0;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        if (!plan.t[q]) continue;
        bp[nb] = qb[q];
        bn[nb++] = plan.n[q] * (q == CZ_GROTH16_Q_B_G2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine));
    }
    char g[160];
    snprintf(g, sizeof g, "%s/pieces.tables", dir);
    const uint32_t sizes[] = {64u << 10, 16u << 20, 1u << 30};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        memcpy(b + 20, &sizes[i], 4);
        chunked_sha256(bp, bn, nb, sizes[i], b + 128);
        const uint8_t *whole = b;
        const size_t wn = (size_t)len - 32;
        chunked_sha256(&whole, &wn, 1, sizes[i], b + len - 32);
        f = fopen(g, "wb");
        assert_int_equal(fwrite(b, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        map_expect(g, &plan, CZ_OK, NULL);
        uint8_t proof[CZ_GROTH16_PROOF_BYTES];
        prove(P, proof);
        assert_memory_equal(proof, proof_built, sizeof proof);
        drop_tables();
    }
    /* sizes outside the rule are refused by name, digests or not */
    const uint32_t bad[] = {(1u << 20) + 4096, 32u << 10, 2u << 30, 0};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memcpy(b + 20, &bad[i], 4);
        f = fopen(g, "wb");
        assert_int_equal(fwrite(b, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        map_expect(g, &plan, CZ_ERR_FORMAT, "digest chunks of");
    }
    unlink(g);
    free(b);
}

static void refuses_a_short_file(void **state)
{
    (void)state;
    char f[160];
    snprintf(f, sizeof f, "%s/short.tables", dir);
    copy_flipped(f, -1);
    struct stat sb;
    assert_int_equal(stat(f, &sb), 0);
    assert_int_equal(truncate(f, sb.st_size - 1), 0);
    map_expect(f, &plan, CZ_ERR_TRUNCATED, "the header says");
    assert_int_equal(truncate(f, 100), 0);
    map_expect(f, &plan, CZ_ERR_TRUNCATED, "shorter than a header");
    unlink(f);
    map_expect(f, &plan, CZ_ERR_NOT_FOUND, NULL);
}

/* Another limit plans other tables (H alone): refused, not partly used. */
static void refuses_another_plan(void **state)
{
    (void)state;
    cz_groth16_tables_plan h_only;
    cz_groth16_tables_plan_for(&h_only, pce, cz_msm_g1_tables_bytes(plan.n[CZ_GROTH16_Q_H], plan.t[CZ_GROTH16_Q_H]),
                               pool);
    assert_int_not_equal(h_only.t[CZ_GROTH16_Q_H], 0);
    assert_int_equal(h_only.t[CZ_GROTH16_Q_L], 0);
    map_expect(path, &h_only, CZ_ERR_MISMATCH, "another limit or thread count");
}

/* A new setup of the same circuit: same counts, other points. */
static void refuses_other_bases(void **state)
{
    (void)state;
    cz_groth16_params *keep = P, *other;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_groth16_setup(&other, pce, pool, NULL, &e), CZ_OK);
    P = other;
    map_expect(path, &plan, CZ_ERR_MISMATCH, "built from other bases");
    P = keep;
    cz_groth16_params_free(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maps_back_what_was_built),
        cmocka_unit_test(refuses_a_flipped_byte),
        cmocka_unit_test(refuses_a_short_file),
        cmocka_unit_test(accepts_other_digest_pieces),
        cmocka_unit_test(refuses_another_plan),
        cmocka_unit_test(refuses_other_bases),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
