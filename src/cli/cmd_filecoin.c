/*
 * Filecoin sealing commands:
 *
 *   cuzk seal (--registered-proof NAME | --sector-size 2KiB|8MiB|512MiB
 *              [--api v1.0|v1.1|v1.2] [--synthetic])
 *             [--data FILE | --rand-seed N] --prover-id HEX32 --sector-id N
 *             --ticket HEX32 --seed HEX32 [--threads T] [--curio] [--json]
 *             [-o c1.json]
 *   cuzk c1 check [--threads T] FILE
 *
 * seal runs PC1, PC2 and C1 in memory (cuzk/fil_seal.h) and writes the C1
 * output as filecoin-proofs-api JSON (or Curio's wrapper with --curio);
 * it prints comm_d, comm_r and replica_id as hex of their 32-byte
 * little-endian encodings (JSON with --json). --cache-dir D keeps what a
 * sealer keeps after PC2: D/sealed (the replica, sector_size bytes),
 * D/p_aux (comm_c ‖ comm_r_last, 64 bytes: rust-fil-proofs' PersistentAux
 * file) and D/commitments.json (all five values as hex). c1 check verifies a C1 file
 * (either layout) natively and names the first bad value.
 * Exit status (docs/cli.md): 0 ok, 1 failed (seal failure, c1 check finds
 * a bad value), 2 usage, 3 an input file cannot be read or parsed (or the
 * data does not fit the sector).
 */
#include "bench_util.h"
#include "commands.h"
#include "cli_util.h"
#include "opts.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_hash.h"
#include "cuzk/fil_seal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* decimal, no sign, no leading zeros: "010" is not 8 */
static bool parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1])) return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

static cz_pool *make_pool(long threads) {
    if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    cz_pool *pool = NULL;
    /* the calling thread participates: a pool of threads − 1 workers */
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "seal") != CZ_OK) pool = NULL;
    return pool;
}

static const cz_opt seal_opts[] = {
    CZ_STR("--registered-proof", "NAME|ID", "the registered proof (see below)"),
    CZ_STR("--sector-size", "SIZE", "2KiB | 8MiB | 512MiB (instead of --registered-proof)"),
    CZ_STR("--api", "VERSION", "with --sector-size: v1.0 | v1.1 (default) | v1.2"),
    CZ_FLAG("--synthetic", "with --api v1.2: synthetic challenges (else non-interactive)"),
    CZ_STR("--data", "FILE", "the sector's unpadded content (default: random from --rand-seed)"),
    CZ_NUM("--rand-seed", "N", 0, LLONG_MAX, "seed of the random sector content (default 0)"),
    CZ_STR("--prover-id", "HEX32", "prover id, 64 hex digits (required)"),
    CZ_NUM("--sector-id", "N", 0, LLONG_MAX, "sector number (required)"),
    CZ_STR("--ticket", "HEX32", "the ticket, 64 hex digits (required)"),
    CZ_STR("--seed", "HEX32", "the interactive seed, 64 hex digits (required)"),
    CZ_NUM("--threads", "T", 0, 1024, "threads, the calling one included (0 = one per CPU)"),
    CZ_FLAG("--curio", "write the C1 in Curio's wrapper"),
    CZ_FLAG("--json", "print the commitments as JSON"),
    CZ_STR("--cache-dir", "DIR", "keep sealed, p_aux and commitments.json there"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "c1.json",
     .help = "write the C1 output ('-' = stdout; the summary then goes to stderr)"},
    {0},
};
static const cz_cmd seal_cmd = {
    .name = "cuzk seal",
    .synopsis = "(--registered-proof NAME | --sector-size 2KiB|8MiB|512MiB [--api v1.0|v1.1|v1.2 [--synthetic]])\n"
                "                 [--data FILE | --rand-seed N] --prover-id HEX32 --sector-id N --ticket HEX32 --seed HEX32\n"
                "                 [--threads T] [--curio] [--json] [--cache-dir D] [-o c1.json]",
    .opts = seal_opts,
};

static void seal_usage(FILE *f) {
    cz_opts_help(&seal_cmd, f);
    fprintf(f, "\nregistered proofs sealed in memory:\n");
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++)
        if (cz_fil_seal_proofs[i].sector_size <= (512ull << 20))
            fprintf(f, "  %2u %s\n", cz_fil_seal_proofs[i].id, cz_fil_seal_proofs[i].name);
}

static const cz_fil_seal_proof *pick_proof(const cz_args *a) {
    const char *name = cz_opt_str(a, "--registered-proof", NULL);
    if (name) {
        if (cz_opt_given(a, "--sector-size") || cz_opt_given(a, "--api") || cz_opt_given(a, "--synthetic")) {
            cz_usage_error(&seal_cmd, "--registered-proof excludes --sector-size, --api and --synthetic");
            return NULL;
        }
        const cz_fil_seal_proof *p = cz_fil_seal_proof_by_name(name);
        uint64_t id;
        if (!p && parse_u64(name, &id) && id < 1000) p = cz_fil_seal_proof_by_id((unsigned)id);
        if (!p) cz_usage_error(&seal_cmd, "--registered-proof: unknown registered proof \"%s\"", name);
        return p;
    }
    const char *ss = cz_opt_str(a, "--sector-size", NULL);
    uint64_t size;
    if (!ss) {
        cz_usage_error(&seal_cmd, "--registered-proof or --sector-size (2KiB, 8MiB, 512MiB) is required");
        return NULL;
    }
    if (cz_fil_parse_sector_size(ss, &size) != CZ_OK) {
        cz_usage_error(&seal_cmd, "--sector-size: expected 2KiB, 8MiB, 512MiB, ..., got '%s'", ss);
        return NULL;
    }
    const char *api_s = cz_opt_str(a, "--api", "v1.1");
    cz_fil_api_version api;
    if (!strcmp(api_s, "v1.0") || !strcmp(api_s, "1.0.0")) api = CZ_FIL_API_1_0;
    else if (!strcmp(api_s, "v1.1") || !strcmp(api_s, "1.1.0")) api = CZ_FIL_API_1_1;
    else if (!strcmp(api_s, "v1.2") || !strcmp(api_s, "1.2.0")) api = CZ_FIL_API_1_2;
    else {
        cz_usage_error(&seal_cmd, "--api: expected v1.0, v1.1 or v1.2, got '%s'", api_s);
        return NULL;
    }
    /* API 1.2 carries the two feature variants: synthetic with
     * --synthetic, non-interactive otherwise */
    cz_fil_challenge_mode mode = cz_opt_flag(a, "--synthetic") ? CZ_FIL_CHALLENGES_SYNTHETIC
                               : api == CZ_FIL_API_1_2                 ? CZ_FIL_CHALLENGES_NON_INTERACTIVE
                                                                        : CZ_FIL_CHALLENGES_INTERACTIVE;
    const cz_fil_seal_proof *p = cz_fil_seal_proof_find(size, api, mode);
    if (!p) cz_usage_error(&seal_cmd, "no registered proof for sector size %s and api %s", ss, api_s);
    return p;
}

int cz_cmd_seal(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) break;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            /* the generated help plus the list of registered proofs */
            seal_usage(stdout);
            return 0;
        }
    cz_args a;
    int prc = cz_opts_parse(&a, &seal_cmd, argc, argv);
    if (prc >= 0) return prc;
    const cz_fil_seal_proof *proof = pick_proof(&a);
    if (!proof) return CZ_EXIT_USAGE;
    if (proof->sector_size > (512ull << 20)) {
        fprintf(stderr, "cuzk seal: %s sectors are not sealed in memory (2KiB, 8MiB and 512MiB are); "
                        "cuzk proves their C1 outputs\n", proof->name);
        return CZ_EXIT_FAIL;
    }
    cz_fil_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.proof = proof;
    /* every bad or missing one is named, not only the first */
    static const char *const hexes[] = {"--prover-id", "--ticket", "--seed"};
    uint8_t *dst[] = {sp.prover_id, sp.ticket, sp.seed};
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        const char *v = cz_opt_str(&a, hexes[i], NULL);
        if (!v) bad = cz_usage_error(&seal_cmd, "%s HEX32 is required", hexes[i]);
        else if (!cz_hex32_parse(v, dst[i])) bad = cz_usage_error(&seal_cmd, "%s: expected 64 hex digits, got '%s'", hexes[i], v);
    }
    if (!cz_opt_given(&a, "--sector-id")) bad = cz_usage_error(&seal_cmd, "--sector-id N is required");
    if (bad) return bad;
    sp.sector_id = (uint64_t)cz_opt_num(&a, "--sector-id", 0);
    if (cz_opt_given(&a, "--data") && cz_opt_given(&a, "--rand-seed"))
        return cz_usage_error(&seal_cmd, "--data and --rand-seed exclude each other");
    const char *out = cz_opt_str(&a, "-o", NULL);
    const char *data_path = cz_opt_str(&a, "--data", NULL);
    long threads = (long)cz_opt_num(&a, "--threads", 0);
    bool json = cz_opt_flag(&a, "--json"), curio = cz_opt_flag(&a, "--curio");
    /* with the C1 on stdout, the summary goes to stderr */
    bool c1_stdout = out && !strcmp(out, "-");
    FILE *info = c1_stdout ? stderr : stdout;
    uint64_t unpadded = cz_fil_unpadded_size(proof->sector_size);
    uint8_t *data = NULL;
    size_t len = 0;
    if (data_path) {
        data = cz_read_file(data_path, &len, NULL);
        if (!data) {
            fprintf(stderr, "cuzk seal: --data %s: cannot read: %s\n", data_path, strerror(errno));
            return CZ_EXIT_IO;
        }
        if (len > unpadded) {
            fprintf(stderr, "cuzk seal: %s has %zu bytes; a %s sector holds at most %llu unpadded bytes\n", data_path,
                    len, proof->name, (unsigned long long)unpadded);
            free(data);
            return CZ_EXIT_IO;
        }
    } else {
        /* random sector content from --rand-seed (ChaCha20 keyed by the
         * seed as u64 LE): reproducible without a data file */
        uint64_t rs = (uint64_t)cz_opt_num(&a, "--rand-seed", 0);
        uint8_t key[32] = { 0 };
        for (int i = 0; i < 8; i++) key[i] = (uint8_t)(rs >> (8 * i));
        len = unpadded;
        data = malloc(len);
        if (!data) {
            fprintf(stderr, "cuzk seal: out of memory for %zu bytes of sector data\n", len);
            return 1;
        }
        cz_chacha_rng r;
        cz_chacha_rng_init(&r, key, 20);
        cz_chacha_rng_fill_bytes(&r, data, len);
    }
    const char *cache_dir = cz_opt_str(&a, "--cache-dir", NULL);
    uint8_t *sealed = NULL;
    if (cache_dir) {
        if (mkdir(cache_dir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "cuzk seal: --cache-dir %s: cannot create: %s\n", cache_dir, strerror(errno));
            free(data);
            return CZ_EXIT_IO;
        }
        sealed = malloc(proof->sector_size);
        if (!sealed) {
            fprintf(stderr, "cuzk seal: out of memory for the sealed sector\n");
            free(data);
            return 1;
        }
        sp.sealed_out = sealed;
    }
    cz_pool *pool = make_pool(threads);
    cz_fil_seal_result res;
    cz_fil_c1 c1;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_seal(&sp, data, len, pool, &res, out ? &c1 : NULL, &err);
    free(data);
    cz_pool_destroy(pool);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk seal: %s\n", err.msg[0] ? err.msg : cz_status_str(st));
        free(sealed);
        return CZ_EXIT_FAIL;
    }
    int rc = 0;
    if (cache_dir) {
        rc |= cz_write_file_in("cuzk seal", cache_dir, "sealed", sealed, proof->sector_size) ? CZ_EXIT_IO : 0;
        uint8_t paux[64];
        memcpy(paux, res.comm_c.b, 32);
        memcpy(paux + 32, res.comm_r_last.b, 32);
        rc |= cz_write_file_in("cuzk seal", cache_dir, "p_aux", paux, sizeof paux) ? CZ_EXIT_IO : 0;
        char js[512], h[5][65];
        cz_hex32_format(h[0], res.comm_d.b);
        cz_hex32_format(h[1], res.comm_r.b);
        cz_hex32_format(h[2], res.replica_id.b);
        cz_hex32_format(h[3], res.comm_c.b);
        cz_hex32_format(h[4], res.comm_r_last.b);
        int n = snprintf(js, sizeof js,
                         "{\"registered_proof\":\"%s\",\"comm_d\":\"%s\",\"comm_r\":\"%s\",\"replica_id\":\"%s\","
                         "\"comm_c\":\"%s\",\"comm_r_last\":\"%s\"}\n",
                         proof->name, h[0], h[1], h[2], h[3], h[4]);
        rc |= cz_write_file_in("cuzk seal", cache_dir, "commitments.json", js, (size_t)n) ? CZ_EXIT_IO : 0;
        free(sealed);
    }
    if (out) {
        char *js = NULL;
        size_t jl = 0;
        st = curio ? cz_fil_c1_to_curio_json(&c1, sp.sector_id, &js, &jl) : cz_fil_c1_to_json(&c1, &js, &jl);
        cz_fil_c1_free(&c1);
        if (st != CZ_OK) {
            fprintf(stderr, "cuzk seal: cannot encode the C1 output: %s\n", cz_status_str(st));
            rc = CZ_EXIT_FAIL;
        } else {
            int orc = 0;
            FILE *f = cz_out_open(out, false, "cuzk seal: -o", &orc);
            if (f) {
                fwrite(js, 1, jl, f);
                orc = cz_out_close(f, out, "cuzk seal: -o");
            }
            if (orc) rc = orc;
        }
        free(js);
    }
    char hd[65], hr[65], hid[65], hc[65], hrl[65];
    cz_hex32_format(hd, res.comm_d.b);
    cz_hex32_format(hr, res.comm_r.b);
    cz_hex32_format(hid, res.replica_id.b);
    cz_hex32_format(hc, res.comm_c.b);
    cz_hex32_format(hrl, res.comm_r_last.b);
    if (json) {
        fprintf(info, "{\"registered_proof\":\"%s\",\"sector_size\":%llu,\"comm_d\":\"%s\",\"comm_r\":\"%s\","
               "\"replica_id\":\"%s\",\"comm_c\":\"%s\",\"comm_r_last\":\"%s\",\"ms\":{\"tree_d\":%.1f,"
               "\"graph\":%.1f,\"labels\":%.1f,\"tree_c\":%.1f,\"encode\":%.1f,\"tree_r\":%.1f,\"c1\":%.1f}}\n",
               proof->name, (unsigned long long)proof->sector_size, hd, hr, hid, hc, hrl, res.ms_tree_d,
               res.ms_graph, res.ms_labels, res.ms_tree_c, res.ms_encode, res.ms_tree_r, res.ms_c1);
    } else {
        fprintf(info, "registered_proof %s\ncomm_d      %s\ncomm_r      %s\nreplica_id  %s\ncomm_c      %s\n"
               "comm_r_last %s\n",
               proof->name, hd, hr, hid, hc, hrl);
        if (out) fprintf(info, "c1          %s%s\n", c1_stdout ? "stdout" : out, curio ? " (Curio wrapper)" : "");
    }
    return rc;
}

static const cz_opt c1_opts[] = {
    CZ_NUM("--threads", "T", 0, 1024, "threads, the calling one included (0 = one per CPU)"),
    {0},
};
static const cz_cmd c1_cmd = {
    .name = "cuzk c1",
    .synopsis = "check [--threads T] FILE",
    .about = "  verifies a C1 output (filecoin-proofs-api JSON or Curio's wrapper) natively and names the first\n"
             "  bad value. Exit status: 0 ok, 1 a check failed, 2 usage, 3 FILE cannot be read or parsed.",
    .opts = c1_opts,
    .max_pos = 2,
};

int cz_cmd_c1(int argc, char **argv) {
    cz_args a;
    int prc = cz_opts_parse(&a, &c1_cmd, argc, argv);
    if (prc >= 0) return prc;
    if (a.npos < 1 || strcmp(a.pos[0], "check") != 0)
        return a.npos ? cz_usage_error(&c1_cmd, "unknown subcommand '%s' (check)", a.pos[0])
                      : cz_usage_error(&c1_cmd, "a subcommand is required (check)");
    if (a.npos < 2) return cz_usage_error(&c1_cmd, "check: a C1 file is required");
    const char *path = a.pos[1];
    cz_fil_c1 c1;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_c1_read_file(&c1, path, &err);
    if (st != CZ_OK) {
        /* the reader's message starts with the file name */
        if (err.msg[0]) fprintf(stderr, "cuzk c1 check: %s\n", err.msg);
        else fprintf(stderr, "cuzk c1 check: %s: %s\n", path, cz_status_str(st));
        return CZ_EXIT_IO;
    }
    cz_pool *pool = make_pool((long)cz_opt_num(&a, "--threads", 0));
    st = cz_fil_c1_check(&c1, pool, &err);
    cz_pool_destroy(pool);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk c1 check: %s: %s\n", path, err.msg[0] ? err.msg : cz_status_str(st));
        cz_fil_c1_free(&c1);
        return CZ_EXIT_FAIL;
    }
    size_t n = 0;
    for (size_t k = 0; k < c1.npartitions; k++) n += c1.partitions[k].nchallenges;
    char hr[65];
    cz_hex32_format(hr, c1.comm_r.b);
    printf("%s: ok (%s, %zu partitions, %zu challenges, comm_r %s)\n", path, c1.registered_proof->name,
           c1.npartitions, n, hr);
    cz_fil_c1_free(&c1);
    return 0;
}
