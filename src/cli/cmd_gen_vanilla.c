/*
 * cuzk gen-vanilla --preset S [--partitions N] [--seed S] [--challenge-seed S]
 *                  [--threads T] [--verify] -o out.json
 *
 * Makes a random sector of the preset's size from the seed, labels it,
 * builds tree_d, tree_c and tree_r and writes the vanilla proof ("C1
 * output") of N partitions as JSON (docs/vanilla-proof.md). The challenge
 * seed defaults to the sector seed. --verify re-parses the written file and
 * verifies it natively. T threads = the calling thread + T−1 pool workers
 * (default: one per CPU). Exit status: 0 ok, 1 failure, 2 usage.
 */
#include "bench_util.h"
#include "cuzk/circuits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cz_cmd_gen_vanilla(int argc, char **argv);

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end || s[0] == '-')
        return false;
    *out = v;
    return true;
}

static void usage(void)
{
    fprintf(stderr, "usage: cuzk gen-vanilla --preset NAME [--partitions N] [--seed S] "
                    "[--challenge-seed S] [--threads T] [--verify] -o out.json\npresets:\n");
    for (size_t i = 0; i < cz_porep_preset_count(); i++) {
        char line[400];
        cz_porep_describe(cz_porep_preset_at(i), NULL, line, sizeof line);
        fprintf(stderr, "  %s\n", line);
    }
}

int cz_cmd_gen_vanilla(int argc, char **argv)
{
    if (cz_arg_flag(argc, argv, "--help") || cz_arg_flag(argc, argv, "-h")) {
        usage();
        return 0;
    }
    const char *preset = cz_arg_str(argc, argv, "--preset", NULL);
    const char *out = cz_arg_str(argc, argv, "-o", cz_arg_str(argc, argv, "--out", NULL));
    const char *seed_s = cz_arg_str(argc, argv, "--seed", "1");
    long parts = cz_arg_long(argc, argv, "--partitions", 1);
    long threads = cz_arg_long(argc, argv, "--threads", 0);
    bool verify = cz_arg_flag(argc, argv, "--verify");
    uint64_t seed, cseed;
    if (!preset || !out) {
        fprintf(stderr, "cuzk gen-vanilla: --preset and -o are required\n");
        usage();
        return 2;
    }
    const cz_porep_params *p = cz_porep_preset_get(preset);
    if (!p) {
        fprintf(stderr, "cuzk gen-vanilla: unknown preset \"%s\"\n", preset);
        usage();
        return 2;
    }
    if (!parse_u64(seed_s, &seed) ||
        !parse_u64(cz_arg_str(argc, argv, "--challenge-seed", seed_s), &cseed)) {
        fprintf(stderr, "cuzk gen-vanilla: --seed / --challenge-seed must be unsigned integers\n");
        return 2;
    }
    if (parts < 1 || parts > 1024 || threads < 0 || threads > 4096) {
        fprintf(stderr, "cuzk gen-vanilla: --partitions 1..1024, --threads 0..4096 (0 = all CPUs)\n");
        return 2;
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
        return 1;
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
