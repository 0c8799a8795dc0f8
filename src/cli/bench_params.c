/*
 * cuzk bench params --file F.params [--threads T] [--skip-full] [--cold]
 *                   [--cache-out PATH] [--json]
 *
 * What loading one bellperson .params file costs, stage by stage, as the
 * parameter store does it (docs/parameters.md):
 *   digest       BLAKE2b-512 of the file (the published-digest check,
 *                done once per file and then remembered in the stamp)
 *   trusted      parse: counts, canonical coordinates, on curve, not the
 *                identity (the mode for a digest-checked ceremony file)
 *   full         parse with the subgroup test of every point (--skip-full
 *                for huge files: hours at 32GiB)
 *   cache_write  cuzk's in-memory form written to PATH (default
 *                <F>.bench-cache; SHA-256 checksummed), then removed
 *   cache_load   mapping it back (checksum verified): what every later load
 *                costs
 * GB/s are of the .params file's size (the cache has the same points as
 * 48-byte limbs instead of 48-byte big-endian coordinates, so it is about
 * as large; *_own rates use its own size). The file is read
 * once before the timings unless --cold, so every stage sees it in the
 * page cache (--cold: the digest pays the disk reads). T threads = the
 * calling thread + T-1 pool workers (0: online CPUs).
 */
#include "bench_util.h"
#include "opts.h"
#include "commands.h"
#include "cuzk/fil_params.h"
#include "cuzk/groth16.h"
#include "prover/prover_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int bench_fail(const char *what, const cz_errbuf *e)
{
    fprintf(stderr, "cuzk bench params: %s: %s\n", what, e->msg);
    return 1;
}

static void warm(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return;
    static char buf[1 << 20];
    while (fread(buf, 1, sizeof buf, f) == sizeof buf) {
    }
    fclose(f);
}

static const cz_opt params_opts[] = {
    CZ_STR("--file", "F.params", "the parameter file (required)"),
    CZ_NUM("--threads", "T", 0, 1024, "threads (0 = one per CPU, the default)"),
    CZ_FLAG("--skip-full", "skip the fully validating parse"),
    CZ_FLAG("--cold", "drop the file from the page cache first"),
    CZ_STR("--cache-out", "PATH", "where the converted cache goes (default F.params.bench-cache)"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd params_cmd = {
    .name = "cuzk bench params",
    .synopsis = "--file F.params [--threads T] [--skip-full] [--cold] [--cache-out PATH] [--json]",
    .opts = params_opts,
};

int cz_bench_params(int argc, char **argv)
{
    cz_args oa;
    int prc = cz_opts_parse(&oa, &params_cmd, argc, argv);
    if (prc >= 0) return prc;
    const char *file = cz_opt_str(&oa, "--file", NULL);
    long threads = cz_opt_num(&oa, "--threads", 0);
    bool json = cz_opt_flag(&oa, "--json"), skip_full = cz_opt_flag(&oa, "--skip-full");
    bool cold = cz_opt_flag(&oa, "--cold");
    if (!file || threads < 0) {
        fprintf(stderr, "usage: cuzk bench params --file F.params [--threads T] [--skip-full] [--cold] "
                        "[--cache-out PATH] [--json]\n");
        return 2;
    }
    struct stat sb;
    if (stat(file, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        perror(file);
        return 1;
    }
    double gb = (double)sb.st_size / 1e9;
    if (threads == 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "bench-params") != CZ_OK) return 1;
    if (!cold) warm(file);

    cz_errbuf e = {{0}};
    cz_bench_report *rep = cz_bench_report_new("params", json);
    char extra[256];
    snprintf(extra, sizeof extra, "\"threads\":%ld,\"bytes\":%lld", threads, (long long)sb.st_size);
    cz_bench_report_add(rep, "size", gb, "GB", extra);
    int rc = 0;

    char digest[CZ_FIL_PARAMS_DIGEST_HEX + 1];
    double t0 = cz_now_ns();
    if (cz_fil_params_file_digest(file, digest, &e) != CZ_OK) {
        rc = bench_fail("digest", &e);
        goto out;
    }
    double dt = (cz_now_ns() - t0) / 1e9;
    snprintf(extra, sizeof extra, "\"digest\":\"%s\"", digest);
    cz_bench_report_add(rep, "digest_s", dt, "s", extra);
    cz_bench_report_add(rep, "digest", gb / dt, "GB/s", NULL);

    cz_groth16_params *p = NULL;
    t0 = cz_now_ns();
    if (cz_groth16_params_read_ex(&p, file, NULL, pool, CZ_PARAMS_VALIDATE_TRUSTED, &e) != CZ_OK) {
        rc = bench_fail("trusted parse", &e);
        goto out;
    }
    dt = (cz_now_ns() - t0) / 1e9;
    cz_bench_report_add(rep, "trusted_parse_s", dt, "s", NULL);
    cz_bench_report_add(rep, "trusted_parse", gb / dt, "GB/s", NULL);

    if (!skip_full) {
        cz_groth16_params *q = NULL;
        t0 = cz_now_ns();
        cz_status st = cz_groth16_params_read_ex(&q, file, NULL, pool, CZ_PARAMS_VALIDATE_FULL, &e);
        dt = (cz_now_ns() - t0) / 1e9;
        cz_groth16_params_free(q);
        if (st != CZ_OK) {
            cz_groth16_params_free(p);
            rc = bench_fail("full parse", &e);
            goto out;
        }
        cz_bench_report_add(rep, "full_parse_s", dt, "s", NULL);
        cz_bench_report_add(rep, "full_parse", gb / dt, "GB/s", NULL);
    }

    char cpath[4200];
    snprintf(cpath, sizeof cpath, "%s.bench-cache", file);
    const char *co = cz_opt_str(&oa, "--cache-out", NULL);
    if (co) snprintf(cpath, sizeof cpath, "%s", co);
    uint8_t hash[32] = {0};
    t0 = cz_now_ns();
    cz_status st = cz__cache_write(cpath, p, hash, &e);
    dt = (cz_now_ns() - t0) / 1e9;
    cz_groth16_params_free(p);
    if (st != CZ_OK) {
        rc = bench_fail("cache write", &e);
        goto out;
    }
    struct stat cb;
    double cgb = stat(cpath, &cb) == 0 ? (double)cb.st_size / 1e9 : 0;
    snprintf(extra, sizeof extra, "\"cache_bytes\":%lld", (long long)(cgb * 1e9));
    cz_bench_report_add(rep, "cache_write_s", dt, "s", extra);
    cz_bench_report_add(rep, "cache_write", gb / dt, "GB/s", NULL);
    cz_bench_report_add(rep, "cache_write_own", cgb / dt, "GB/s", NULL);

    t0 = cz_now_ns();
    st = cz__cache_load(cpath, hash, &p, &e);
    dt = (cz_now_ns() - t0) / 1e9;
    cz_groth16_params_free(p);
    unlink(cpath);
    if (st != CZ_OK) {
        rc = bench_fail("cache load", &e);
        goto out;
    }
    cz_bench_report_add(rep, "cache_load_s", dt, "s", NULL);
    cz_bench_report_add(rep, "cache_load", gb / dt, "GB/s", NULL);
    cz_bench_report_add(rep, "cache_load_own", cgb / dt, "GB/s", NULL);
out:
    if (rc) {
        cz_bench_report_finish(rep);
    } else {
        rc = cz_bench_report_finish(rep);
    }
    cz_pool_destroy(pool);
    return rc;
}
