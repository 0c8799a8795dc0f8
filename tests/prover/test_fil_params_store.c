/*
 * Filecoin ceremony files in the parameter store (store.c load_v28) and
 * the two validation modes of the .params reader (params_io.c).
 *
 * No ceremony file is needed: a "v28" file is the bellperson-layout
 * .params of a quick setup of a small mulchain circuit, and its expected
 * digest is given explicitly (cz__store_load_ex) or through the
 * CUZK_FIL_PARAMS_DIGESTS override, which is how a custom ceremony is
 * used too. The Filecoin-specific facts are the reference's own:
 * rust-fil-proofs 19.1 parameters.json's name and digest of the 2KiB PoRep
 * file, checked through cz__store_load for circuit porep-2k.
 */
#include "testutil.h"
#include "cuzk/circuits.h"
#include "cuzk/daemon.h"
#include "cuzk/fil_params.h"
#include "cuzk/groth16.h"
#include "prover/prover_internal.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* rust-fil-proofs 19.1 parameters.json (storage-proofs-core) */
#define POREP_2K_NAME                                                                                              \
    "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"                          \
    "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params"
#define POREP_2K_DIGEST "434fb1338ecfaf0f59256f30dde4968f"

static char dir[64];
static cz_pool *pool;
static cz_pce *pce_a, *pce_b; /* mulchain 64 and 80 multiplications */
static char v28[256];         /* the fake ceremony file (setup of pce_a) */
static char v28_digest[33];
static cz_groth16_params *ref; /* its parameters, read fully */

static void sh(const char *fmt, const char *a)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, a);
    if (system(cmd) != 0) fail_msg("command failed: %s", cmd);
}

static cz_pce *record_mulchain(size_t n)
{
    cz_mulchain mc = {.n_mul = n, .n_extra_inputs = 1};
    cz_fr_from_u64(&mc.x0, 3);
    cz_pce *p = NULL;
    assert_int_equal(cz_pce_record(&p, cz_mulchain_synth, &mc, NULL), CZ_OK);
    return p;
}

static void setup_file(const cz_pce *pce, const char *path)
{
    cz_groth16_params *p = NULL;
    cz_errbuf e = {{0}};
    if (cz_groth16_setup(&p, pce, pool, NULL, &e) != CZ_OK) fail_msg("setup: %s", e.msg);
    if (cz_groth16_params_write(p, path, &e) != CZ_OK) fail_msg("write: %s", e.msg);
    cz_groth16_params_free(p);
}

static int group_setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/cz_filps_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    unsetenv(CZ_FIL_DIGESTS_ENV);
    if (cz_pool_create(&pool, 1, "t-filps") != CZ_OK) return -1;
    pce_a = record_mulchain(64);
    pce_b = record_mulchain(80);
    snprintf(v28, sizeof v28, "%s/v28-test.params", dir);
    setup_file(pce_a, v28);
    cz_errbuf e = {{0}};
    if (cz_fil_params_file_digest(v28, v28_digest, &e) != CZ_OK) return -1;
    if (cz_groth16_params_read(&ref, v28, pce_a, pool, &e) != CZ_OK) return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    cz_groth16_params_free(ref);
    cz_pce_free(pce_a);
    cz_pce_free(pce_b);
    cz_pool_destroy(pool);
    sh("rm -rf '%s'", dir);
    return 0;
}

static bool same_params(const cz_groth16_params *x, const cz_groth16_params *y)
{
    if (x->vk.n_ic != y->vk.n_ic || x->n_h != y->n_h || x->n_l != y->n_l || x->n_a != y->n_a || x->n_b != y->n_b)
        return false;
    return !memcmp(&x->vk.alpha_g1, &y->vk.alpha_g1, sizeof(cz_g1_affine)) &&
           !memcmp(&x->vk.beta_g1, &y->vk.beta_g1, sizeof(cz_g1_affine)) &&
           !memcmp(&x->vk.delta_g1, &y->vk.delta_g1, sizeof(cz_g1_affine)) &&
           !memcmp(&x->vk.beta_g2, &y->vk.beta_g2, sizeof(cz_g2_affine)) &&
           !memcmp(&x->vk.gamma_g2, &y->vk.gamma_g2, sizeof(cz_g2_affine)) &&
           !memcmp(&x->vk.delta_g2, &y->vk.delta_g2, sizeof(cz_g2_affine)) &&
           !memcmp(x->vk.ic, y->vk.ic, x->vk.n_ic * sizeof(cz_g1_affine)) &&
           !memcmp(x->h, y->h, x->n_h * sizeof(cz_g1_affine)) &&
           !memcmp(x->l, y->l, x->n_l * sizeof(cz_g1_affine)) &&
           !memcmp(x->a, y->a, x->n_a * sizeof(cz_g1_affine)) &&
           !memcmp(x->b_g1, y->b_g1, x->n_b * sizeof(cz_g1_affine)) &&
           !memcmp(x->b_g2, y->b_g2, x->n_b * sizeof(cz_g2_affine));
}

/* ---- file surgery ---- */
static uint8_t *load(const char *path, size_t *len) { return cz_read_file(path, len); }

static void save(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* byte offsets of ic[0] and h[0] in a bellperson .params file */
static size_t off_ic(void) { return 3 * 96 + 3 * 192 + 4; }
static size_t off_h(const uint8_t *b) { return off_ic() + 96 * (size_t)be32(b + off_ic() - 4) + 4; }

/* A point on y^2 = x^3 + 4 outside the prime-order subgroup (G1's
 * cofactor is large: the first x whose right side is a square will do). */
static void off_subgroup_g1(uint8_t out[96])
{
    for (uint64_t x = 1;; x++) {
        cz_g1_affine p;
        cz_fp four, rhs;
        cz_fp_from_u64(&p.x, x);
        cz_fp_from_u64(&four, 4);
        cz_fp_sqr(&rhs, &p.x);
        cz_fp_mul(&rhs, &rhs, &p.x);
        cz_fp_add(&rhs, &rhs, &four);
        if (!cz_fp_sqrt(&p.y, &rhs)) continue;
        assert_true(cz_g1_affine_is_on_curve(&p));
        if (cz_g1_affine_in_subgroup(&p)) continue;
        cz_g1_serialize(out, &p);
        return;
    }
}

/* ---- the reader's modes ---- */
static void trusted_equals_full(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    cz_groth16_params *t = NULL, *f = NULL;
    assert_int_equal(cz_groth16_params_read_ex(&t, v28, pce_a, pool, CZ_PARAMS_VALIDATE_TRUSTED, &e), CZ_OK);
    assert_int_equal(cz_groth16_params_read_ex(&f, v28, pce_a, pool, CZ_PARAMS_VALIDATE_FULL, &e), CZ_OK);
    assert_true(same_params(t, f));
    assert_true(same_params(t, ref));
    cz_groth16_params_free(t);
    cz_groth16_params_free(f);
    assert_int_equal(cz_groth16_params_read_ex(&t, v28, pce_a, pool, (cz_params_validate)7, &e), CZ_ERR_INVALID_ARG);
}

static void subgroup_only_in_full(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = load(v28, &n);
    uint8_t bad[96];
    off_subgroup_g1(bad);
    cz_errbuf e = {{0}};
    cz_groth16_params *p = NULL;

    /* h[0] off the subgroup: trusted takes it, full refuses it */
    uint8_t *c = malloc(n);
    memcpy(c, b, n);
    memcpy(c + off_h(b), bad, 96);
    assert_int_equal(cz_groth16_params_parse_ex(&p, c, n, pool, CZ_PARAMS_VALIDATE_TRUSTED, &e), CZ_OK);
    assert_true(cz_g1_affine_is_on_curve(&p->h[0]));
    assert_false(cz_g1_affine_in_subgroup(&p->h[0]));
    cz_groth16_params_free(p);
    assert_int_equal(cz_groth16_params_parse_ex(&p, c, n, pool, CZ_PARAMS_VALIDATE_FULL, &e), CZ_ERR_NOT_IN_SUBGROUP);
    assert_non_null(strstr(e.msg, "h point 0"));
    assert_null(p);

    /* ic is the verifying key's: checked fully in both modes */
    memcpy(c, b, n);
    memcpy(c + off_ic(), bad, 96);
    assert_int_equal(cz_groth16_params_parse_ex(&p, c, n, pool, CZ_PARAMS_VALIDATE_TRUSTED, &e),
                     CZ_ERR_NOT_IN_SUBGROUP);
    assert_non_null(strstr(e.msg, "ic point 0"));

    /* off the curve, or the identity: refused in trusted mode too */
    memcpy(c, b, n);
    c[off_h(b) + 95] ^= 1;
    assert_int_equal(cz_groth16_params_parse_ex(&p, c, n, pool, CZ_PARAMS_VALIDATE_TRUSTED, &e), CZ_ERR_NOT_ON_CURVE);
    memcpy(c, b, n);
    memset(c + off_h(b), 0, 96);
    c[off_h(b)] = 0x40; /* uncompressed infinity */
    assert_int_equal(cz_groth16_params_parse_ex(&p, c, n, pool, CZ_PARAMS_VALIDATE_TRUSTED, &e), CZ_ERR_IDENTITY);
    /* truncated: the count is checked against the bytes left */
    assert_int_equal(cz_groth16_params_parse_ex(&p, b, n - 1, pool, CZ_PARAMS_VALIDATE_TRUSTED, &e),
                     CZ_ERR_TRUNCATED);
    free(c);
    free(b);
}

/* ---- the store ---- */
static char *logbuf;
static size_t loglen;

static cz_status store(const char *base, const cz_pce *pce, const char *path, const char *digest,
                       cz_params_validate mode, bool auto_setup, cz_groth16_params **out, cz_errbuf *e)
{
    FILE *log = open_memstream(&logbuf, &loglen);
    cz__store_opts o = {.auto_setup = auto_setup, .v28_path = path, .v28_digest = digest, .v28_mode = mode};
    cz_status st = cz__store_load_ex(base, "mulchain-64", pce, &o, pool, log, NULL, out, e);
    fclose(log);
    return st;
}

static bool logged(const char *what) { return logbuf && strstr(logbuf, what); }

static void clear_log(void)
{
    free(logbuf);
    logbuf = NULL;
}

static bool exists(const char *base, const char *ext)
{
    char p[512];
    snprintf(p, sizeof p, "%s.%s", base, ext);
    return access(p, F_OK) == 0;
}

static void missing_file(void **state)
{
    (void)state;
    char base[128], path[128];
    snprintf(base, sizeof base, "%s/missing", dir);
    snprintf(path, sizeof path, "%s/v28-not-there.params", dir);
    cz_errbuf e = {{0}};
    cz_groth16_params *p = NULL;
    /* auto_setup must not turn a missing ceremony file into a setup */
    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, true, &p, &e), CZ_ERR_NOT_FOUND);
    clear_log();
    assert_null(p);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, v28_digest));
    assert_false(exists(base, "params"));
    assert_false(exists(base, "cache"));
    /* no digest known: not found either, naming the file */
    assert_int_equal(store(base, pce_a, v28, "", CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_ERR_NOT_FOUND);
    clear_log();
    assert_non_null(strstr(e.msg, v28));
}

static void digest_mismatch(void **state)
{
    (void)state;
    char base[128];
    snprintf(base, sizeof base, "%s/mism", dir);
    const char *wrong = "00112233445566778899aabbccddeeff";
    cz_errbuf e = {{0}};
    cz_groth16_params *p = NULL;
    assert_int_equal(store(base, pce_a, v28, wrong, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_ERR_MISMATCH);
    clear_log();
    assert_null(p);
    assert_non_null(strstr(e.msg, v28));
    assert_non_null(strstr(e.msg, v28_digest));
    assert_non_null(strstr(e.msg, wrong));
    assert_false(exists(base, "v28-verified"));
    assert_false(exists(base, "cache"));
}

static void set_mtime(const char *path, time_t t)
{
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* The stamp: verified once, then trusted while the file is unchanged;
 * any change of it (even with its old mtime put back) checks it again. */
static void stamp_and_recheck(void **state)
{
    (void)state;
    char base[128], path[128];
    snprintf(base, sizeof base, "%s/stamp", dir);
    snprintf(path, sizeof path, "%s/v28-stamp.params", dir);
    size_t n;
    uint8_t *b = load(v28, &n);
    save(path, b, n);
    set_mtime(path, 1000000000);
    cz_errbuf e = {{0}};
    cz_groth16_params *p = NULL;

    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    assert_true(logged("checking the digest"));
    clear_log();
    assert_true(same_params(p, ref));
    cz_groth16_params_free(p);
    assert_true(exists(base, "v28-verified"));
    assert_true(exists(base, "cache"));
    assert_true(exists(base, "meta"));
    assert_false(exists(base, "params"));

    /* unchanged: no digest, straight from the cache (a mapping) */
    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    assert_false(logged("checking the digest"));
    clear_log();
    assert_int_equal(p->storage_kind, CZ_GROTH16_STORAGE_MAPPED);
    assert_true(same_params(p, ref));
    cz_groth16_params_free(p);

    /* mtime changed: checked again (and still fine) */
    set_mtime(path, 1100000000);
    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    assert_true(logged("checking the digest"));
    clear_log();
    cz_groth16_params_free(p);

    /* another expected digest (a different override): checked again */
    assert_int_equal(store(base, pce_a, path, "ffffffffffffffffffffffffffffffff", CZ_PARAMS_VALIDATE_TRUSTED,
                           false, &p, &e), CZ_ERR_MISMATCH);
    clear_log();
    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    clear_log();
    cz_groth16_params_free(p);

    /* one byte changed in place, the old mtime put back: ctime shows it */
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    uint8_t *c = malloc(n);
    memcpy(c, b, n);
    c[off_h(b) + 50] ^= 0x01;
    for (int i = 0; i < 200; i++) {
        int fd = open(path, O_WRONLY);
        assert_true(fd >= 0);
        assert_int_equal(pwrite(fd, c + off_h(b) + 50, 1, (off_t)(off_h(b) + 50)), 1);
        close(fd);
        set_mtime(path, 1100000000);
        struct stat now;
        assert_int_equal(stat(path, &now), 0);
        if (now.st_ctim.tv_sec != before.st_ctim.tv_sec || now.st_ctim.tv_nsec != before.st_ctim.tv_nsec) break;
        usleep(10000); /* coarse file-system clock: wait for the next tick */
    }
    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_ERR_MISMATCH);
    assert_true(logged("checking the digest"));
    clear_log();
    assert_non_null(strstr(e.msg, path));

    /* size changed: checked again */
    save(path, b, n);
    FILE *f = fopen(path, "ab");
    fputc(0, f);
    fclose(f);
    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_ERR_MISMATCH);
    clear_log();
    save(path, b, n);
    assert_int_equal(store(base, pce_a, path, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    clear_log();
    assert_true(same_params(p, ref));
    cz_groth16_params_free(p);
    free(c);
    free(b);
}

/* A cache made from other parameters of the same circuit is never taken
 * for the ceremony file's, nor the ceremony's for a local .params. */
static void foreign_cache(void **state)
{
    (void)state;
    char base[128], other[128], cmd_a[600];
    snprintf(base, sizeof base, "%s/foreign", dir);
    snprintf(other, sizeof other, "%s/local", dir);
    cz_errbuf e = {{0}};
    cz_groth16_params *p = NULL, *loc = NULL;
    /* a local setup of the same circuit at <other> (its own cache) */
    assert_int_equal(store(other, pce_a, NULL, NULL, CZ_PARAMS_VALIDATE_FULL, true, &loc, &e), CZ_OK);
    clear_log();
    assert_false(same_params(loc, ref));
    assert_true(exists(other, "cache"));

    assert_int_equal(store(base, pce_a, v28, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    clear_log();
    cz_groth16_params_free(p);
    snprintf(cmd_a, sizeof cmd_a, "cp '%s.cache' '%s.cache'", other, base);
    sh("%s", cmd_a);
    assert_int_equal(store(base, pce_a, v28, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    assert_true(logged("not the cache made from the verified parameter file"));
    clear_log();
    assert_true(same_params(p, ref));
    cz_groth16_params_free(p);
    /* and the cache is rebuilt from the ceremony file */
    assert_int_equal(store(base, pce_a, v28, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    assert_false(logged("reading"));
    clear_log();
    assert_int_equal(p->storage_kind, CZ_GROTH16_STORAGE_MAPPED);
    cz_groth16_params_free(p);

    /* a local .params (with its .meta) at <base> wins over the ceremony
     * file, and the ceremony's cache there is not taken for it */
    snprintf(cmd_a, sizeof cmd_a, "cp '%s.params' '%s.params' && cp '%s.meta' '%s.meta'", other, base, other, base);
    sh("%s", cmd_a);
    assert_int_equal(store(base, pce_a, v28, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    assert_true(logged("made from the Filecoin parameter file"));
    clear_log();
    assert_true(same_params(p, loc));
    cz_groth16_params_free(p);
    cz_groth16_params_free(loc);
}

static void full_mode_is_real(void **state)
{
    (void)state;
    char base[128], path[128], d[33];
    snprintf(base, sizeof base, "%s/subgroup", dir);
    snprintf(path, sizeof path, "%s/v28-subgroup.params", dir);
    size_t n;
    uint8_t *b = load(v28, &n);
    off_subgroup_g1(b + off_h(b));
    save(path, b, n);
    free(b);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_fil_params_file_digest(path, d, &e), CZ_OK);
    cz_groth16_params *p = NULL;
    assert_int_equal(store(base, pce_a, path, d, CZ_PARAMS_VALIDATE_FULL, false, &p, &e), CZ_ERR_NOT_IN_SUBGROUP);
    assert_true(logged("full validation"));
    clear_log();
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, "h point 0"));
    assert_false(exists(base, "cache"));
    assert_int_equal(store(base, pce_a, path, d, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_OK);
    assert_false(logged("checking the digest")); /* the digest was verified by the first call */
    clear_log();
    assert_false(cz_g1_affine_in_subgroup(&p->h[0]));
    cz_groth16_params_free(p);
}

static void truncated_and_wrong_counts(void **state)
{
    (void)state;
    char base[128], path[128], d[33];
    snprintf(base, sizeof base, "%s/trunc", dir);
    snprintf(path, sizeof path, "%s/v28-trunc.params", dir);
    size_t n;
    uint8_t *b = load(v28, &n);
    save(path, b, n - 100);
    free(b);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_fil_params_file_digest(path, d, &e), CZ_OK);
    cz_groth16_params *p = NULL;
    assert_int_equal(store(base, pce_a, path, d, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_ERR_TRUNCATED);
    clear_log();
    assert_non_null(strstr(e.msg, path));

    /* the file of mulchain-64 offered for mulchain-80: counts named */
    snprintf(base, sizeof base, "%s/counts", dir);
    assert_int_equal(store(base, pce_b, v28, v28_digest, CZ_PARAMS_VALIDATE_TRUSTED, false, &p, &e), CZ_ERR_MISMATCH);
    clear_log();
    assert_non_null(strstr(e.msg, v28));
    /* same inputs (1, x0, x_n, y0) and domain (128): l is the first count
     * that differs, n_aux = n_mul - 1 */
    assert_int_equal(pce_a->n_aux, 63);
    assert_int_equal(pce_b->n_aux, 79);
    assert_non_null(strstr(e.msg, "l has 63 points"));
    assert_non_null(strstr(e.msg, "circuit has 79 aux"));
    assert_false(exists(base, "cache"));
}

/* ---- digests: the override file and the published table ---- */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void digest_override(void **state)
{
    (void)state;
    char js[128], d[33];
    cz_errbuf e = {{0}};
    snprintf(js, sizeof js, "%s/digests.json", dir);
    unsetenv(CZ_FIL_DIGESTS_ENV);
    assert_int_equal(cz__fil_expected_digest(POREP_2K_NAME, d, &e), CZ_OK);
    assert_string_equal(d, POREP_2K_DIGEST);
    assert_int_equal(cz__fil_expected_digest("v28-nothing.params", d, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, CZ_FIL_DIGESTS_ENV));

    write_text(js, "{\"" POREP_2K_NAME "\": \"0123456789ABCDEF0123456789abcdef\", \"v28-x.params\": "
                   "\"ffffffffffffffffffffffffffffffff\"}");
    setenv(CZ_FIL_DIGESTS_ENV, js, 1);
    assert_int_equal(cz__fil_expected_digest(POREP_2K_NAME, d, &e), CZ_OK);
    assert_string_equal(d, "0123456789abcdef0123456789abcdef");
    assert_int_equal(cz__fil_expected_digest("v28-x.params", d, &e), CZ_OK);
    assert_string_equal(d, "ffffffffffffffffffffffffffffffff");
    /* names it does not have still come from the table */
    const char *other = cz_fil_params_published[0].name;
    assert_int_equal(cz__fil_expected_digest(other, d, &e), CZ_OK);
    assert_string_equal(d, cz_fil_params_published[0].digest);

    write_text(js, "{\"v28-x.params\": \"fff\"}");
    assert_int_equal(cz__fil_expected_digest(POREP_2K_NAME, d, &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "v28-x.params"));
    write_text(js, "{\"v28-x.params\": ");
    assert_int_equal(cz__fil_expected_digest(POREP_2K_NAME, d, &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, js));
    write_text(js, "[\"a\"]");
    assert_int_equal(cz__fil_expected_digest(POREP_2K_NAME, d, &e), CZ_ERR_FORMAT);
    unlink(js);
    assert_int_equal(cz__fil_expected_digest(POREP_2K_NAME, d, &e), CZ_ERR_IO);
    unsetenv(CZ_FIL_DIGESTS_ENV);
}

/* Circuit porep-2k through cz__store_load: the reference's file name in
 * $FIL_PROOFS_PARAMETER_CACHE and its published digest. (The parameters
 * here are the mulchain file under that name with its digest in the
 * override, so the shape check is against the mulchain circuit.) */
static void porep_2k_source(void **state)
{
    (void)state;
    char fil[128], base[128], path[400], d[33], js[128], text[400];
    snprintf(fil, sizeof fil, "%s/fil", dir);
    mkdir(fil, 0755);
    setenv(CZ_FIL_PARAMS_ENV, fil, 1);
    unsetenv(CZ_FIL_DIGESTS_ENV);
    snprintf(base, sizeof base, "%s/porep-2k", dir);
    cz_errbuf e = {{0}};
    assert_int_equal(cz__fil_v28_source("porep-2k", path, sizeof path, d, &e), CZ_OK);
    char want[400];
    snprintf(want, sizeof want, "%s/%s", fil, POREP_2K_NAME);
    assert_string_equal(path, want);
    assert_string_equal(d, POREP_2K_DIGEST);
    assert_int_equal(cz__fil_v28_source("mulchain-64", path, sizeof path, d, &e), CZ_OK);
    assert_int_equal(path[0], 0);
    assert_int_equal(cz__fil_v28_source("wpost-3g", path, sizeof path, d, &e), CZ_OK);
    assert_int_equal(path[0], 0);

    /* PoSt and SnapDeals ids name published ceremony files: every one is
     * in parameters.json with a digest, and no two ids share a file. The
     * identifiers' hashes are the reference's, so a wrong identifier
     * string names a file that is not published. */
    {
        static const char *const kinds[] = {"winning-", "wpost-", "snap-"};
        static const char *const sizes[] = {"2k", "8m", "512m", "32g", "64g"};
        char seen[15][300];
        int n = 0;
        for (int k = 0; k < 3; k++)
            for (int z = 0; z < 5; z++) {
                char cid[32];
                snprintf(cid, sizeof cid, "%s%s", kinds[k], sizes[z]);
                assert_int_equal(cz__fil_v28_source(cid, path, sizeof path, d, &e), CZ_OK);
                const char *base_name = strrchr(path, '/') + 1;
                const cz_fil_params_entry *pe = cz_fil_params_lookup(base_name);
                if (!pe) fail_msg("%s: %s is not a published parameter file", cid, base_name);
                assert_string_equal(d, pe->digest);
                assert_non_null(strstr(base_name, k == 2 ? "v28-empty-sector-update-merkletree-poseidon_hasher-8-"
                                                         : "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-"));
                for (int i = 0; i < n; i++) assert_string_not_equal(seen[i], base_name);
                snprintf(seen[n++], sizeof seen[0], "%s", base_name);
            }
    }

    cz_groth16_params *p = NULL;
    assert_int_equal(cz__store_load(base, "porep-2k", pce_a, false, pool, NULL, NULL, &p, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, want));
    assert_non_null(strstr(e.msg, POREP_2K_DIGEST));
    assert_false(exists(base, "params"));

    /* present but not the published file */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", v28, want);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(cz__store_load(base, "porep-2k", pce_a, false, pool, NULL, NULL, &p, &e), CZ_ERR_MISMATCH);
    assert_non_null(strstr(e.msg, POREP_2K_DIGEST));
    assert_non_null(strstr(e.msg, v28_digest));

    /* a custom ceremony: its digest in the override file */
    snprintf(js, sizeof js, "%s/digests.json", dir);
    snprintf(text, sizeof text, "{\"%s\": \"%s\"}", POREP_2K_NAME, v28_digest);
    write_text(js, text);
    setenv(CZ_FIL_DIGESTS_ENV, js, 1);
    assert_int_equal(cz__store_load(base, "porep-2k", pce_a, false, pool, NULL, NULL, &p, &e), CZ_OK);
    assert_true(same_params(p, ref));
    cz_groth16_params_free(p);
    assert_true(exists(base, "v28-verified"));
    assert_int_equal(cz__store_load(base, "porep-2k", pce_a, false, pool, NULL, NULL, &p, &e), CZ_OK);
    assert_int_equal(p->storage_kind, CZ_GROTH16_STORAGE_MAPPED);
    cz_groth16_params_free(p);
    unsetenv(CZ_FIL_DIGESTS_ENV);
    unsetenv(CZ_FIL_PARAMS_ENV);
}

/* [backend] params_validate = trusted | full (cuzkd's configuration) */
static void config_option(void **state)
{
    (void)state;
    cz_daemon_config c;
    cz_daemon_config_default(&c);
    assert_false(c.params_validate_full);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_daemon_config_set(&c, "backend", "params_validate", "full", &e), CZ_OK);
    assert_true(c.params_validate_full);
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    cz_daemon_config_print(&c, f);
    fclose(f);
    assert_non_null(strstr(out, "params_validate = full\n"));
    free(out);
    assert_int_equal(cz_daemon_config_set_arg(&c, "backend.params_validate=trusted", &e), CZ_OK);
    assert_false(c.params_validate_full);
    assert_int_equal(cz_daemon_config_set(&c, "backend", "params_validate", "fast", &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "trusted or full"));
    /* the documented example sets it to the default */
    char ex[512];
    snprintf(ex, sizeof ex, "%s/docs/cuzkd.ini.example", getenv("CZ_SOURCE_DIR") ? getenv("CZ_SOURCE_DIR") : ".");
    c.params_validate_full = true;
    assert_int_equal(cz_daemon_config_load(&c, ex, &e), CZ_OK);
    assert_false(c.params_validate_full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trusted_equals_full),
        cmocka_unit_test(subgroup_only_in_full),
        cmocka_unit_test(missing_file),
        cmocka_unit_test(digest_mismatch),
        cmocka_unit_test(stamp_and_recheck),
        cmocka_unit_test(foreign_cache),
        cmocka_unit_test(full_mode_is_real),
        cmocka_unit_test(truncated_and_wrong_counts),
        cmocka_unit_test(digest_override),
        cmocka_unit_test(porep_2k_source),
        cmocka_unit_test(config_option),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
