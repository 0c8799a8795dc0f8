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
 * Exit status: 0 ok, 1 failure (bad input file, failed check), 2 usage.
 */
#include "bench_util.h"
#include "commands.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_hash.h"
#include "cuzk/fil_seal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool parse_hex32(const char *s, uint8_t out[32]) {
    if (!s) return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    if (strlen(s) != 64) return false;
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + k];
            unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                       : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                       : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
            if (d > 15) return false;
            v = v * 16 + d;
        }
        out[i] = (uint8_t)v;
    }
    return true;
}

static void hex(char out[65], const uint8_t b[32]) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static bool parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || s[0] == '-') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
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

static uint8_t *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (buf && ferror(f)) { free(buf); buf = NULL; }
    fclose(f);
    *len = n;
    return buf;
}

/* dir/name <- buf; 0 on success, 1 (after a message) on failure */
static int write_file(const char *dir, const char *name, const void *buf, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cuzk seal: cannot write %s: %s\n", path, strerror(errno));
        if (f) fclose(f);
        return 1;
    }
    return 0;
}

static void seal_usage(void) {
    fprintf(stderr,
            "usage: cuzk seal (--registered-proof NAME | --sector-size 2KiB|8MiB|512MiB [--api v1.0|v1.1|v1.2 [--synthetic]])\n"
            "                 [--data FILE | --rand-seed N] --prover-id HEX32 --sector-id N --ticket HEX32 --seed HEX32\n"
            "                 [--threads T] [--curio] [--json] [--cache-dir D] [-o c1.json]\n"
            "registered proofs sealed in memory:\n");
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++)
        if (cz_fil_seal_proofs[i].sector_size <= (512ull << 20))
            fprintf(stderr, "  %2u %s\n", cz_fil_seal_proofs[i].id, cz_fil_seal_proofs[i].name);
}

static const cz_fil_seal_proof *pick_proof(int argc, char **argv) {
    const char *name = cz_arg_str(argc, argv, "--registered-proof", NULL);
    if (name) {
        const cz_fil_seal_proof *p = cz_fil_seal_proof_by_name(name);
        uint64_t id;
        if (!p && parse_u64(name, &id) && id < 1000) p = cz_fil_seal_proof_by_id((unsigned)id);
        if (!p) fprintf(stderr, "cuzk seal: unknown registered proof \"%s\"\n", name);
        return p;
    }
    const char *ss = cz_arg_str(argc, argv, "--sector-size", NULL);
    uint64_t size;
    if (!ss || cz_fil_parse_sector_size(ss, &size) != CZ_OK) {
        fprintf(stderr, "cuzk seal: --registered-proof or --sector-size (2KiB, 8MiB, 512MiB) is required\n");
        return NULL;
    }
    const char *api_s = cz_arg_str(argc, argv, "--api", "v1.1");
    cz_fil_api_version api;
    if (!strcmp(api_s, "v1.0") || !strcmp(api_s, "1.0.0")) api = CZ_FIL_API_1_0;
    else if (!strcmp(api_s, "v1.1") || !strcmp(api_s, "1.1.0")) api = CZ_FIL_API_1_1;
    else if (!strcmp(api_s, "v1.2") || !strcmp(api_s, "1.2.0")) api = CZ_FIL_API_1_2;
    else {
        fprintf(stderr, "cuzk seal: --api must be v1.0, v1.1 or v1.2\n");
        return NULL;
    }
    /* API 1.2 carries the two feature variants: synthetic with
     * --synthetic, non-interactive otherwise */
    cz_fil_challenge_mode mode = cz_arg_flag(argc, argv, "--synthetic") ? CZ_FIL_CHALLENGES_SYNTHETIC
                               : api == CZ_FIL_API_1_2                 ? CZ_FIL_CHALLENGES_NON_INTERACTIVE
                                                                        : CZ_FIL_CHALLENGES_INTERACTIVE;
    const cz_fil_seal_proof *p = cz_fil_seal_proof_find(size, api, mode);
    if (!p) fprintf(stderr, "cuzk seal: no registered proof for sector size %s and api %s\n", ss, api_s);
    return p;
}

int cz_cmd_seal(int argc, char **argv) {
    if (cz_arg_flag(argc, argv, "--help") || cz_arg_flag(argc, argv, "-h")) {
        seal_usage();
        return 0;
    }
    const cz_fil_seal_proof *proof = pick_proof(argc, argv);
    if (!proof) {
        seal_usage();
        return 2;
    }
    if (proof->sector_size > (512ull << 20)) {
        fprintf(stderr, "cuzk seal: %s sectors are not sealed in memory (2KiB, 8MiB and 512MiB are); "
                        "cuzk proves their C1 outputs\n", proof->name);
        return 1;
    }
    cz_fil_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.proof = proof;
    if (!parse_hex32(cz_arg_str(argc, argv, "--prover-id", NULL), sp.prover_id) ||
        !parse_hex32(cz_arg_str(argc, argv, "--ticket", NULL), sp.ticket) ||
        !parse_hex32(cz_arg_str(argc, argv, "--seed", NULL), sp.seed) ||
        !parse_u64(cz_arg_str(argc, argv, "--sector-id", NULL), &sp.sector_id)) {
        fprintf(stderr, "cuzk seal: --prover-id, --ticket and --seed (64 hex digits each) and --sector-id N are required\n");
        return 2;
    }
    const char *out = cz_arg_str(argc, argv, "-o", cz_arg_str(argc, argv, "--out", NULL));
    const char *data_path = cz_arg_str(argc, argv, "--data", NULL);
    long threads = cz_arg_long(argc, argv, "--threads", 0);
    bool json = cz_arg_flag(argc, argv, "--json"), curio = cz_arg_flag(argc, argv, "--curio");
    uint64_t unpadded = cz_fil_unpadded_size(proof->sector_size);
    uint8_t *data = NULL;
    size_t len = 0;
    if (data_path) {
        data = read_all(data_path, &len);
        if (!data) {
            fprintf(stderr, "cuzk seal: cannot read %s: %s\n", data_path, strerror(errno));
            return 1;
        }
        if (len > unpadded) {
            fprintf(stderr, "cuzk seal: %s has %zu bytes; a %s sector holds at most %llu unpadded bytes\n", data_path,
                    len, proof->name, (unsigned long long)unpadded);
            free(data);
            return 1;
        }
    } else {
        /* random sector content from --rand-seed (ChaCha20 keyed by the
         * seed as u64 LE): reproducible without a data file */
        uint64_t rs;
        if (!parse_u64(cz_arg_str(argc, argv, "--rand-seed", "0"), &rs)) {
            fprintf(stderr, "cuzk seal: --rand-seed must be an unsigned integer\n");
            return 2;
        }
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
    const char *cache_dir = cz_arg_str(argc, argv, "--cache-dir", NULL);
    uint8_t *sealed = NULL;
    if (cache_dir) {
        if (mkdir(cache_dir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "cuzk seal: cannot create %s: %s\n", cache_dir, strerror(errno));
            free(data);
            return 1;
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
        return 1;
    }
    int rc = 0;
    if (cache_dir) {
        rc |= write_file(cache_dir, "sealed", sealed, proof->sector_size);
        uint8_t paux[64];
        memcpy(paux, res.comm_c.b, 32);
        memcpy(paux + 32, res.comm_r_last.b, 32);
        rc |= write_file(cache_dir, "p_aux", paux, sizeof paux);
        char js[512], h[5][65];
        hex(h[0], res.comm_d.b);
        hex(h[1], res.comm_r.b);
        hex(h[2], res.replica_id.b);
        hex(h[3], res.comm_c.b);
        hex(h[4], res.comm_r_last.b);
        int n = snprintf(js, sizeof js,
                         "{\"registered_proof\":\"%s\",\"comm_d\":\"%s\",\"comm_r\":\"%s\",\"replica_id\":\"%s\","
                         "\"comm_c\":\"%s\",\"comm_r_last\":\"%s\"}\n",
                         proof->name, h[0], h[1], h[2], h[3], h[4]);
        rc |= write_file(cache_dir, "commitments.json", js, (size_t)n);
        free(sealed);
    }
    if (out) {
        char *js = NULL;
        size_t jl = 0;
        st = curio ? cz_fil_c1_to_curio_json(&c1, sp.sector_id, &js, &jl) : cz_fil_c1_to_json(&c1, &js, &jl);
        cz_fil_c1_free(&c1);
        FILE *f = st == CZ_OK ? fopen(out, "wb") : NULL;
        if (!f || fwrite(js, 1, jl, f) != jl || fclose(f) != 0) {
            fprintf(stderr, "cuzk seal: cannot write %s\n", out);
            rc = 1;
        }
        free(js);
    }
    char hd[65], hr[65], hid[65], hc[65], hrl[65];
    hex(hd, res.comm_d.b);
    hex(hr, res.comm_r.b);
    hex(hid, res.replica_id.b);
    hex(hc, res.comm_c.b);
    hex(hrl, res.comm_r_last.b);
    if (json) {
        printf("{\"registered_proof\":\"%s\",\"sector_size\":%llu,\"comm_d\":\"%s\",\"comm_r\":\"%s\","
               "\"replica_id\":\"%s\",\"comm_c\":\"%s\",\"comm_r_last\":\"%s\",\"ms\":{\"tree_d\":%.1f,"
               "\"graph\":%.1f,\"labels\":%.1f,\"tree_c\":%.1f,\"encode\":%.1f,\"tree_r\":%.1f,\"c1\":%.1f}}\n",
               proof->name, (unsigned long long)proof->sector_size, hd, hr, hid, hc, hrl, res.ms_tree_d,
               res.ms_graph, res.ms_labels, res.ms_tree_c, res.ms_encode, res.ms_tree_r, res.ms_c1);
    } else {
        printf("registered_proof %s\ncomm_d      %s\ncomm_r      %s\nreplica_id  %s\ncomm_c      %s\n"
               "comm_r_last %s\n",
               proof->name, hd, hr, hid, hc, hrl);
        if (out) printf("c1          %s%s\n", out, curio ? " (Curio wrapper)" : "");
    }
    return rc;
}

int cz_cmd_c1(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "check") != 0 || cz_arg_flag(argc, argv, "--help")) {
        fprintf(stderr, "usage: cuzk c1 check [--threads T] FILE   (filecoin-proofs-api C1 JSON or Curio's wrapper)\n");
        return argc >= 2 && cz_arg_flag(argc, argv, "--help") ? 0 : 2;
    }
    const char *path = argv[argc - 1];
    if (argc < 3 || path[0] == '-') {
        fprintf(stderr, "cuzk c1 check: a C1 file is required\n");
        return 2;
    }
    cz_fil_c1 c1;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_c1_read_file(&c1, path, &err);
    if (st != CZ_OK) {
        /* the reader's message starts with the file name */
        if (err.msg[0]) fprintf(stderr, "cuzk c1 check: %s\n", err.msg);
        else fprintf(stderr, "cuzk c1 check: %s: %s\n", path, cz_status_str(st));
        return 1;
    }
    cz_pool *pool = make_pool(cz_arg_long(argc, argv, "--threads", 0));
    st = cz_fil_c1_check(&c1, pool, &err);
    cz_pool_destroy(pool);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk c1 check: %s: %s\n", path, err.msg[0] ? err.msg : cz_status_str(st));
        cz_fil_c1_free(&c1);
        return 1;
    }
    size_t n = 0;
    for (size_t k = 0; k < c1.npartitions; k++) n += c1.partitions[k].nchallenges;
    char hr[65];
    hex(hr, c1.comm_r.b);
    printf("%s: ok (%s, %zu partitions, %zu challenges, comm_r %s)\n", path, c1.registered_proof->name,
           c1.npartitions, n, hr);
    cz_fil_c1_free(&c1);
    return 0;
}
