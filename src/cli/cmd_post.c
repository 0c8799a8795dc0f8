/*
 * Filecoin FallbackPoSt commands (cuzk/fil_post.h):
 *
 *   cuzk post vanilla --registered-proof NAME|ID --cache-dir DIR[,DIR...]
 *                     --sector-id N[,N...] (--prover-id HEX32 | --miner-id N)
 *                     --randomness HEX32 [--partition K] [--threads T]
 *                     [-o request.bin] [--bincode-dir D] [--curio-json F]
 *   cuzk post check FILE
 *
 * vanilla rebuilds tree R of each sector from a directory written by
 * `cuzk seal --cache-dir` (sealed + p_aux), derives the challenges
 * (generate_fallback_sector_challenges) and writes the proving request
 * envelope (-o), each FallbackPoStSectorProof as the raw bincode Curio
 * sends (--bincode-dir: D/sector-<N>.bin), and/or Curio's bench layout
 * (--curio-json: a JSON array of base64 strings). Several sectors (window
 * only) are given as comma-separated lists of the same length, the i-th
 * sector id belonging to the i-th directory. Winning takes exactly one
 * sector (the one generate_winning_post_sector_challenge picked; that
 * choice is printed for a sector set of the given size with
 * --sector-set-len).
 * check parses a request envelope and verifies it natively
 * (cz_fil_post_check), printing a summary.
 * Exit status (docs/cli.md): 0 ok, 1 a check or generation failed, 2 usage,
 * 3 a file cannot be read, parsed or written.
 */
#include "commands.h"
#include "cli_util.h"
#include "opts.h"
#include "cuzk/base64.h"
#include "cuzk/fil_post.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SECTORS 64 /* sectors on one command line (small sizes: 2 per partition) */

/* decimal u64, no sign, no leading zeros */
static bool dec_u64(const char *s, size_t n, uint64_t *out) {
    if (n == 0 || n > 20 || s[0] < '0' || s[0] > '9' || (s[0] == '0' && n > 1)) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* Splits a comma-separated list in place; returns the count or -1. */
static int split(char *s, char **items, int max) {
    int n = 0;
    for (char *p = s;;) {
        char *c = strchr(p, ',');
        if (n == max) return -1;
        items[n++] = p;
        if (!c) break;
        *c = 0;
        p = c + 1;
    }
    for (int i = 0; i < n; i++)
        if (!*items[i]) return -1;
    return n;
}

static char *str_copy(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static const cz_opt vanilla_opts[] = {
    CZ_STR("--registered-proof", "NAME|ID", "RegisteredPoStProof: serde name or number 0..14 (required)"),
    CZ_STR("--cache-dir", "DIR[,DIR...]", "directories of `cuzk seal --cache-dir` (required)"),
    CZ_STR("--sector-id", "N[,N...]", "sector numbers, one per --cache-dir (required)"),
    CZ_STR("--prover-id", "HEX32", "prover id, 64 hex digits"),
    CZ_STR("--miner-id", "N", "or the miner's actor id (prover id = LEB128 of it, as Curio)"),
    CZ_STR("--randomness", "HEX32", "the challenge randomness, 64 hex digits, a canonical Fr (required)"),
    CZ_NUM("--partition", "K", 0, UINT32_MAX, "window partition index (default 0)"),
    CZ_STR("--sector-set-len", "N", "winning: also print which of N sectors is challenged"),
    CZ_NUM("--threads", "T", 0, 1024, "threads for tree R, the calling one included (0 = one per CPU)"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "request.bin", .help = "write the request envelope"},
    CZ_STR("--bincode-dir", "DIR", "write each sector proof's bincode as DIR/sector-<N>.bin"),
    CZ_STR("--curio-json", "FILE", "write the sector proofs as Curio's bench does (JSON array of base64)"),
    {0},
};
static const cz_cmd vanilla_cmd = {
    .name = "cuzk post vanilla",
    .synopsis = "--registered-proof NAME|ID --cache-dir DIR[,DIR...] --sector-id N[,N...]\n"
                "       (--prover-id HEX32 | --miner-id N) --randomness HEX32 [--partition K] [--threads T]\n"
                "       [-o request.bin] [--bincode-dir DIR] [--curio-json FILE]",
    .about = "  WinningPoSt takes one sector, WindowPoSt 1 to sector_count sectors of partition K (the i-th\n"
             "  --sector-id is the sector in the i-th --cache-dir). At least one of -o, --bincode-dir,\n"
             "  --curio-json. Exit status: 0 ok, 1 generation failed, 2 usage, 3 a file cannot be read or written.",
    .opts = vanilla_opts,
};

static const cz_opt check_opts[] = { {0} };
static const cz_cmd check_cmd = {
    .name = "cuzk post check",
    .synopsis = "FILE",
    .about = "  parses a PoSt request envelope (as `cuzk post vanilla -o` writes it) and verifies every sector\n"
             "  proof natively. Exit status: 0 ok, 1 a check failed, 2 usage, 3 FILE cannot be read or parsed.",
    .opts = check_opts,
    .max_pos = 1,
};

static cz_pool *make_pool(long threads) {
    if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "post") != CZ_OK) pool = NULL;
    return pool;
}

static int post_vanilla(int argc, char **argv) {
    cz_args a;
    int prc = cz_opts_parse(&a, &vanilla_cmd, argc, argv);
    if (prc >= 0) return prc;
    const cz_cmd *c = &vanilla_cmd;
    const cz_fil_post_proof *p = cz_fil_post_proof_by_name(cz_opt_str(&a, "--registered-proof", NULL));
    if (!p) {
        if (!cz_opt_given(&a, "--registered-proof")) return cz_usage_error(c, "--registered-proof is required");
        return cz_usage_error(c, "--registered-proof: unknown '%s' (StackedDrgWinning2KiBV1 .. "
                              "StackedDrgWindow64GiBV1_2, or 0..14)", cz_opt_str(&a, "--registered-proof", ""));
    }
    const char *dirs_s = cz_opt_str(&a, "--cache-dir", NULL), *ids_s = cz_opt_str(&a, "--sector-id", NULL);
    if (!dirs_s || !ids_s) return cz_usage_error(c, "--cache-dir and --sector-id are required");
    const char *out = cz_opt_str(&a, "-o", NULL), *bdir = cz_opt_str(&a, "--bincode-dir", NULL),
               *cj = cz_opt_str(&a, "--curio-json", NULL);
    if (!out && !bdir && !cj) return cz_usage_error(c, "nothing to write: give -o, --bincode-dir or --curio-json");
    uint8_t prover[32], rnd[32];
    if (cz_opt_given(&a, "--prover-id") == cz_opt_given(&a, "--miner-id"))
        return cz_usage_error(c, "give exactly one of --prover-id and --miner-id");
    if (cz_opt_given(&a, "--prover-id")) {
        if (!cz_hex32_parse(cz_opt_str(&a, "--prover-id", NULL), prover))
            return cz_usage_error(c, "--prover-id: expected 64 hex digits");
    } else {
        const char *m = cz_opt_str(&a, "--miner-id", NULL);
        uint64_t mid;
        if (!dec_u64(m, strlen(m), &mid)) return cz_usage_error(c, "--miner-id: expected a decimal u64");
        cz_fil_prover_id_from_miner(mid, prover);
    }
    if (!cz_hex32_parse(cz_opt_str(&a, "--randomness", NULL), rnd))
        return cz_usage_error(c, "--randomness: 64 hex digits are required");
    cz_errbuf err = { { 0 } };
    if (cz_fil_post_safe_commitment(rnd, "randomness", &err) != CZ_OK ||
        cz_fil_post_safe_commitment(prover, "prover_id", &err) != CZ_OK)
        return cz_usage_error(c, "%s", err.msg);
    char *dl = str_copy(dirs_s), *il = str_copy(ids_s);
    char *dirs[MAX_SECTORS], *ids[MAX_SECTORS];
    int nd = dl ? split(dl, dirs, MAX_SECTORS) : -1, ni = il ? split(il, ids, MAX_SECTORS) : -1;
    int rc = 0;
    if (nd < 0 || ni < 0 || nd != ni) {
        rc = cz_usage_error(c, "--cache-dir and --sector-id must be comma-separated lists of the same length "
                            "(at most %d)", MAX_SECTORS);
        goto out_lists;
    }
    uint32_t partition = (uint32_t)cz_opt_num(&a, "--partition", 0);
    if (p->type == CZ_FIL_POST_WINNING && (nd != 1 || partition)) {
        rc = cz_usage_error(c, "%s: WinningPoSt proves exactly one sector, in partition 0", p->name);
        goto out_lists;
    }
    if (p->type == CZ_FIL_POST_WINDOW && (unsigned)nd > p->sector_count) {
        rc = cz_usage_error(c, "%s: a partition holds at most %u sectors", p->name, p->sector_count);
        goto out_lists;
    }
    uint64_t sid[MAX_SECTORS];
    for (int i = 0; i < ni; i++)
        if (!dec_u64(ids[i], strlen(ids[i]), &sid[i])) {
            rc = cz_usage_error(c, "--sector-id: '%s' is not a decimal u64", ids[i]);
            goto out_lists;
        }
    if (cz_opt_given(&a, "--sector-set-len")) {
        const char *s = cz_opt_str(&a, "--sector-set-len", NULL);
        uint64_t n, pick;
        if (p->type != CZ_FIL_POST_WINNING || !dec_u64(s, strlen(s), &n) || n == 0) {
            rc = cz_usage_error(c, "--sector-set-len: a positive number, for a winning proof");
            goto out_lists;
        }
        if (cz_fil_post_winning_sectors(p, rnd, prover, n, &pick, &err) == CZ_OK)
            fprintf(stderr, "winning sector challenge: index %llu of %llu sectors\n", (unsigned long long)pick,
                    (unsigned long long)n);
    }
    cz_pool *pool = make_pool((long)cz_opt_num(&a, "--threads", 0));
    cz_fil_post_replica reps[MAX_SECTORS];
    int nrep = 0;
    for (; nrep < nd; nrep++) {
        cz_status st = cz_fil_post_replica_load(&reps[nrep], p, sid[nrep], dirs[nrep], pool, &err);
        if (st != CZ_OK) {
            fprintf(stderr, "cuzk post vanilla: %s: %s\n", dirs[nrep], err.msg);
            rc = st == CZ_ERR_IO ? CZ_EXIT_IO : CZ_EXIT_FAIL;
            break;
        }
    }
    cz_pool_destroy(pool);
    cz_fil_post_request req;
    memset(&req, 0, sizeof req);
    if (!rc) {
        cz_status st = cz_fil_post_request_generate(&req, p, prover, rnd, partition, reps, (size_t)nd, &err);
        if (st != CZ_OK) {
            fprintf(stderr, "cuzk post vanilla: %s\n", err.msg);
            rc = CZ_EXIT_FAIL;
        } else if ((st = cz_fil_post_check(&req, &err)) != CZ_OK) {
            fprintf(stderr, "cuzk post vanilla: the generated proofs do not check: %s\n", err.msg);
            rc = CZ_EXIT_FAIL;
        }
    }
    if (!rc && out) {
        uint8_t *buf;
        size_t len;
        if (cz_fil_post_request_encode(&req, &buf, &len) != CZ_OK) {
            fprintf(stderr, "cuzk post vanilla: out of memory\n");
            rc = CZ_EXIT_FAIL;
        } else {
            int orc = 0;
            FILE *f = cz_out_open(out, true, "cuzk post vanilla: -o", &orc);
            if (f) {
                fwrite(buf, 1, len, f);
                orc = cz_out_close(f, out, "cuzk post vanilla: -o");
            }
            rc = orc;
            free(buf);
        }
    }
    if (!rc && bdir) {
        if (mkdir(bdir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "cuzk post vanilla: --bincode-dir %s: %s\n", bdir, strerror(errno));
            rc = CZ_EXIT_IO;
        }
        for (size_t i = 0; !rc && i < req.nvanilla; i++) {
            uint8_t *buf;
            size_t len;
            if (cz_fil_post_vanilla_encode(&req.vanilla[i], &buf, &len) != CZ_OK) {
                rc = CZ_EXIT_FAIL;
                break;
            }
            char path[4200];
            snprintf(path, sizeof path, "%s/sector-%llu.bin", bdir, (unsigned long long)req.vanilla[i].sector_id);
            rc = cz_write_file("cuzk post vanilla", path, buf, len);
            free(buf);
        }
    }
    if (!rc && cj) {
        FILE *f = fopen(cj, "w");
        if (!f) {
            fprintf(stderr, "cuzk post vanilla: cannot write %s: %s\n", cj, strerror(errno));
            rc = CZ_EXIT_IO;
        }
        for (size_t i = 0; f && !rc && i < req.nvanilla; i++) {
            uint8_t *buf;
            size_t len;
            char *b64 = NULL;
            if (cz_fil_post_vanilla_encode(&req.vanilla[i], &buf, &len) != CZ_OK ||
                cz_base64_encode(buf, len, &b64, NULL) != CZ_OK) {
                rc = CZ_EXIT_FAIL;
            } else {
                fprintf(f, "%s\"%s\"", i ? "," : "[", b64);
                free(buf);
            }
            free(b64);
        }
        if (f) {
            fprintf(f, "]");
            if (fclose(f) != 0 && !rc) {
                fprintf(stderr, "cuzk post vanilla: cannot write %s: %s\n", cj, strerror(errno));
                rc = CZ_EXIT_IO;
            }
        }
    }
    if (!rc) {
        char h[65];
        cz_hex32_format(h, rnd);
        fprintf(out && !strcmp(out, "-") ? stderr : stdout, "%s: %zu sector proof(s), partition %u, %u challenges "
                "each, randomness %s\n", p->name, req.nvanilla, partition, p->config_challenge_count, h);
    }
    cz_fil_post_request_free(&req);
    for (int i = 0; i < nrep; i++) cz_fil_post_replica_free(&reps[i]);
out_lists:
    free(dl);
    free(il);
    return rc;
}

static int post_check(int argc, char **argv) {
    cz_args a;
    int prc = cz_opts_parse(&a, &check_cmd, argc, argv);
    if (prc >= 0) return prc;
    if (a.npos < 1) return cz_usage_error(&check_cmd, "a request file is required");
    const char *path = a.pos[0];
    size_t len;
    bool opened;
    uint8_t *buf = cz_read_file(path, &len, &opened);
    if (!buf) {
        if (opened) fprintf(stderr, "cuzk post check: %s: cannot read\n", path);
        else fprintf(stderr, "cuzk post check: %s: %s\n", path, strerror(errno));
        return CZ_EXIT_IO;
    }
    cz_fil_post_request req;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_post_request_parse(&req, buf, len, &err);
    free(buf);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk post check: %s: %s\n", path, err.msg[0] ? err.msg : cz_status_str(st));
        return CZ_EXIT_IO;
    }
    st = cz_fil_post_check(&req, &err);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk post check: %s: %s\n", path, err.msg[0] ? err.msg : cz_status_str(st));
        cz_fil_post_request_free(&req);
        return CZ_EXIT_FAIL;
    }
    printf("%s: ok (%s, %s, partition %u, %zu sector proof(s):", path, req.proof->name, req.proof->circuit_id,
           req.partition, req.nvanilla);
    for (size_t i = 0; i < req.nvanilla && i < 8; i++) printf(" %llu", (unsigned long long)req.vanilla[i].sector_id);
    printf("%s, %u challenges each, %zu public inputs)\n", req.nvanilla > 8 ? " ..." : "",
           req.proof->config_challenge_count, cz_fil_post_public_input_count(req.proof));
    cz_fil_post_request_free(&req);
    return 0;
}

static const cz_opt post_opts[] = { {0} };
static const cz_cmd post_cmd = {
    .name = "cuzk post",
    .synopsis = "vanilla [options] | check FILE   (cuzk post vanilla --help)",
    .about = "  Filecoin WinningPoSt / WindowPoSt: make a proving request from sealed sectors (vanilla), or\n"
             "  verify one natively (check).",
    .opts = post_opts,
    .stop_at_pos = true,
};

int cz_cmd_post(int argc, char **argv) {
    cz_args a;
    int prc = cz_opts_parse(&a, &post_cmd, argc, argv);
    if (prc >= 0) return prc;
    if (a.next >= argc) return cz_usage_error(&post_cmd, "a subcommand is required (vanilla, check)");
    int at = a.next;
    if (!strcmp(argv[at], "vanilla")) return post_vanilla(argc - at, argv + at);
    if (!strcmp(argv[at], "check")) return post_check(argc - at, argv + at);
    return cz_usage_error(&post_cmd, "unknown subcommand '%s' (vanilla, check)", argv[at]);
}
