/*
 * cuzk gen-vanilla --preset S [--partitions N] [--seed S] [--challenge-seed S]
 *                  [--threads T] [--verify] -o out.json
 *
 * Makes a random sector of the preset's size from the seed, labels it,
 * builds tree_d, tree_c and tree_r and writes the vanilla proof ("C1
 * output") of N partitions as JSON (docs/vanilla-proof.md). The challenge
 * seed defaults to the sector seed. --verify re-parses the written file and
 * verifies it natively. T threads = the calling thread + T−1 pool workers
 * (default: one per CPU). Exit status: 0 ok, 1 failure, 2 usage, 3 the
 * output cannot be written.
 */
#include "bench_util.h"
#include "commands.h"
#include "opts.h"
#include "cuzk/circuits.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cz_cmd_gen_vanilla(int argc, char **argv);

static const cz_opt gv_opts[] = {
    CZ_STR("--preset", "NAME", "the sector shape (required; see below)"),
    CZ_NUM("--partitions", "N", 1, 1024, "partitions (default 1)"),
    CZ_NUM("--seed", "S", 0, LLONG_MAX, "sector seed (default 1)"),
    CZ_NUM("--challenge-seed", "S", 0, LLONG_MAX, "challenge seed (default: --seed)"),
    CZ_NUM("--threads", "T", 0, 4096, "threads, the calling one included (0 = one per CPU, the default)"),
    CZ_FLAG("--verify", "re-read the written file and verify it natively"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "out.json", .help = "the vanilla proof (required)"},
    {0},
};
static const cz_cmd gv_cmd = {
    .name = "cuzk gen-vanilla",
    .synopsis = "--preset NAME [--partitions N] [--seed S] [--challenge-seed S] [--threads T] [--verify] -o out.json",
    .opts = gv_opts,
};

static void presets(FILE *f)
{
    fprintf(f, "presets:\n");
    for (size_t i = 0; i < cz_porep_preset_count(); i++) {
        char line[400];
        cz_porep_describe(cz_porep_preset_at(i), NULL, line, sizeof line);
        fprintf(f, "  %s\n", line);
    }
}

int cz_cmd_gen_vanilla(int argc, char **argv)
{
    cz_args a;
    int prc = cz_opts_parse(&a, &gv_cmd, argc, argv);
    if (prc == 0)
        presets(stdout);
    if (prc >= 0)
        return prc;
    const char *preset = cz_opt_str(&a, "--preset", NULL);
    const char *out = cz_opt_str(&a, "-o", NULL);
    uint64_t seed = (uint64_t)cz_opt_num(&a, "--seed", 1);
    uint64_t cseed = (uint64_t)cz_opt_num(&a, "--challenge-seed", (long long)seed);
    long parts = (long)cz_opt_num(&a, "--partitions", 1);
    long threads = (long)cz_opt_num(&a, "--threads", 0);
    bool verify = cz_opt_flag(&a, "--verify");
    if (!preset)
        return cz_usage_error(&gv_cmd, "--preset NAME is required");
    if (!out)
        return cz_usage_error(&gv_cmd, "-o FILE is required");
    const cz_porep_params *p = cz_porep_preset_get(preset);
    if (!p) {
        fprintf(stderr, "cuzk gen-vanilla: --preset: unknown preset \"%s\"\n", preset);
        presets(stderr);
        return CZ_EXIT_USAGE;
    }
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? n : 1;
    }
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "gen-van") != CZ_OK) {
        fprintf(stderr, "cuzk gen-vanilla: cannot create a pool of %ld threads\n", threads);
        return 1;
    }
    cz_errbuf err = {{0}};
    cz_porep_vanilla *v = NULL;
    double t0 = cz_now_ns();
    cz_status s = cz_porep_generate(&v, p, seed, cseed, (size_t)parts, pool, &err);
    double t1 = cz_now_ns();
    cz_pool_destroy(pool);
    if (s != CZ_OK) {
        fprintf(stderr, "cuzk gen-vanilla: %s\n", err.msg);
        return 1;
    }
    s = cz_porep_vanilla_save(v, out, &err);
    double t2 = cz_now_ns();
    if (s != CZ_OK) {
        fprintf(stderr, "cuzk gen-vanilla: %s\n", err.msg);
        cz_porep_vanilla_free(v);
        return CZ_EXIT_IO;
    }
    char line[400];
    cz_porep_describe(p, NULL, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    fprintf(stderr, "gen-vanilla: %ld partition(s), seed %llu, challenge seed %llu, %ld thread(s): "
                    "sector + trees %.1f ms, JSON %.1f ms -> %s\n",
            parts, (unsigned long long)seed, (unsigned long long)cseed, threads, (t1 - t0) / 1e6,
            (t2 - t1) / 1e6, out);
    cz_porep_vanilla_free(v);
    if (verify) {
        s = cz_porep_vanilla_load(&v, out, &err);
        if (s == CZ_OK)
            s = cz_porep_vanilla_verify(v, &err);
        cz_porep_vanilla_free(v);
        if (s != CZ_OK) {
            fprintf(stderr, "cuzk gen-vanilla: verification of %s failed: %s\n", out, err.msg);
            return 1;
        }
        fprintf(stderr, "gen-vanilla: %s re-read and verified\n", out);
    }
    return 0;
}
