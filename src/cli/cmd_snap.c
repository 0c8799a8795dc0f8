/*
 * Filecoin SnapDeals (EmptySectorUpdate) commands:
 *
 *   cuzk snap encode  --registered-proof NAME|ID --cache-dir DIR
 *                     (--data FILE | --rand-seed N) [--threads T] -o DIR
 *   cuzk snap vanilla --registered-proof NAME|ID --cache-dir DIR
 *                     (--data FILE | --rand-seed N) [--threads T]
 *                     [--bincode-dir DIR] -o request.bin
 *   cuzk snap pack    --registered-proof NAME|ID --comm-r-old HEX32
 *                     --comm-r-new HEX32 --comm-d-new HEX32 -o request.bin
 *                     PARTITION.bin...  (at most 4 on the command line;
 *                     or --bincode-dir DIR with partition-<k>.bin files)
 *   cuzk snap check   FILE
 *
 * The old sector comes from `cuzk seal --cache-dir DIR`: DIR/sealed (the
 * replica, the update's "sector key") and DIR/p_aux (comm_c ‖
 * comm_r_last). The new data is the unpadded piece bytes (--data; shorter
 * than the sector is zero-filled) or ChaCha20 random bytes keyed by
 * --rand-seed as `cuzk seal` makes them (cuzk/fil_snap.h
 * cz_fil_snap_encode).
 *
 * encode writes OUT/sealed (the new replica), OUT/p_aux (comm_c ‖
 * comm_r_last_new) and OUT/update.json (comm_r_old, comm_r_new,
 * comm_d_new, comm_r_last_new as hex of their 32-byte LE encodings, h,
 * the registered proof), and prints update.json. vanilla re-encodes
 * (nothing is stored between the two) and writes the request envelope
 * (CZSNAPRQ, the engine's job payload); --bincode-dir also writes each
 * partition's bincode PartitionProof as partition-<k>.bin, exactly the
 * bytes Curio's prove_snap_deals receives. pack builds an envelope from
 * such files. check parses an envelope, verifies it natively and prints
 * each partition's four public inputs.
 *
 * Exit status (docs/cli.md): 0 ok, 1 failed (encoding failed, check finds
 * a bad value), 2 usage, 3 an input cannot be read or parsed, an output
 * cannot be written.
 */
#include "commands.h"
#include "cli_util.h"
#include "opts.h"
#include "cuzk/fil_hash.h"
#include "cuzk/fil_seal.h"
#include "cuzk/fil_snap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_dir(const char *dir) {
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cuzk snap: %s: cannot create: %s\n", dir, strerror(errno));
        return CZ_EXIT_IO;
    }
    return 0;
}

static cz_pool *make_pool(long threads) {
    if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "snap") != CZ_OK) pool = NULL;
    return pool;
}

/* ---- encode / vanilla: the shared front half ----------------------------------------- */
static const cz_opt enc_opts[] = {
    CZ_STR("--registered-proof", "NAME|ID", "RegisteredUpdateProof: StackedDrg2KiBV1 .. 64GiBV1, 0..4 or snap-2k .."),
    CZ_STR("--cache-dir", "DIR", "the old sector: DIR/sealed and DIR/p_aux from `cuzk seal --cache-dir` (required)"),
    CZ_STR("--data", "FILE", "the new data, unpadded (default: random from --rand-seed)"),
    CZ_NUM("--rand-seed", "N", 0, LLONG_MAX, "seed of the random new data (default 0)"),
    CZ_NUM("--threads", "T", 0, 1024, "threads, the calling one included (0 = one per CPU)"),
    CZ_STR("--bincode-dir", "DIR", "vanilla: also write partition-<k>.bin (bincode PartitionProof)"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "DIR|FILE",
     .help = "encode: output directory; vanilla: the request envelope"},
    {0},
};

static const cz_cmd enc_cmd = {
    .name = "cuzk snap encode",
    .synopsis = "--registered-proof P --cache-dir DIR (--data FILE | --rand-seed N) [--threads T] -o DIR",
    .opts = enc_opts,
};
static const cz_cmd van_cmd = {
    .name = "cuzk snap vanilla",
    .synopsis = "--registered-proof P --cache-dir DIR (--data FILE | --rand-seed N) [--threads T]\n"
                "                 [--bincode-dir DIR] -o request.bin",
    .opts = enc_opts,
};

static int do_encode(const cz_cmd *cmd, const cz_args *a, cz_fil_snap_update *u) {
    const char *pname = cz_opt_str(a, "--registered-proof", NULL);
    const char *cache = cz_opt_str(a, "--cache-dir", NULL);
    if (!pname) return cz_usage_error(cmd, "--registered-proof is required");
    if (!cache) return cz_usage_error(cmd, "--cache-dir is required");
    if (!cz_opt_given(a, "-o")) return cz_usage_error(cmd, "-o is required");
    if (cz_opt_given(a, "--data") && cz_opt_given(a, "--rand-seed"))
        return cz_usage_error(cmd, "--data and --rand-seed exclude each other");
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_name(pname);
    if (!p) return cz_usage_error(cmd, "--registered-proof %s: unknown update proof", pname);
    if (p->sector_size > (512u << 20)) {
        fprintf(stderr, "%s: %s sectors are not encoded in memory (2KiB, 8MiB and 512MiB are)\n", cmd->name, p->name);
        return CZ_EXIT_FAIL;
    }
    char path[4096];
    size_t slen, plen;
    snprintf(path, sizeof path, "%s/sealed", cache);
    uint8_t *sealed = cz_read_file(path, &slen, NULL);
    if (!sealed || slen != p->sector_size) {
        fprintf(stderr, "%s: %s: %s\n", cmd->name, path,
                sealed ? "not the sector size of the registered proof" : strerror(errno));
        free(sealed);
        return CZ_EXIT_IO;
    }
    snprintf(path, sizeof path, "%s/p_aux", cache);
    uint8_t *paux = cz_read_file(path, &plen, NULL);
    if (!paux || plen != 64) {
        fprintf(stderr, "%s: %s: %s\n", cmd->name, path, paux ? "expected 64 bytes (comm_c, comm_r_last)" : strerror(errno));
        free(sealed);
        free(paux);
        return CZ_EXIT_IO;
    }
    cz_fil_domain comm_c;
    memcpy(comm_c.b, paux, 32);
    cz_fil_domain comm_r_last;
    memcpy(comm_r_last.b, paux + 32, 32);
    free(paux);
    uint64_t unpadded = cz_fil_unpadded_size(p->sector_size);
    const char *dpath = cz_opt_str(a, "--data", NULL);
    uint8_t *data;
    size_t len;
    if (dpath) {
        data = cz_read_file(dpath, &len, NULL);
        if (!data) {
            fprintf(stderr, "%s: --data %s: cannot read: %s\n", cmd->name, dpath, strerror(errno));
            free(sealed);
            return CZ_EXIT_IO;
        }
        if (len > unpadded) {
            fprintf(stderr, "%s: %s has %zu bytes; a %s sector holds at most %llu unpadded bytes\n", cmd->name, dpath,
                    len, p->name, (unsigned long long)unpadded);
            free(data);
            free(sealed);
            return CZ_EXIT_IO;
        }
    } else {
        uint64_t rs = (uint64_t)cz_opt_num(a, "--rand-seed", 0);
        uint8_t key[32] = { 0 };
        for (int i = 0; i < 8; i++) key[i] = (uint8_t)(rs >> (8 * i));
        len = (size_t)unpadded;
        data = malloc(len);
        if (!data) {
            free(sealed);
            fprintf(stderr, "%s: out of memory\n", cmd->name);
            return CZ_EXIT_FAIL;
        }
        cz_chacha_rng r;
        cz_chacha_rng_init(&r, key, 20);
        cz_chacha_rng_fill_bytes(&r, data, len);
    }
    cz_pool *pool = make_pool((long)cz_opt_num(a, "--threads", 0));
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_snap_encode(u, p, sealed, &comm_c, data, len, 0, pool, &err);
    cz_pool_destroy(pool);
    free(data);
    free(sealed);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: %s\n", cmd->name, err.msg[0] ? err.msg : cz_status_str(st));
        return st == CZ_ERR_NOT_CANONICAL ? CZ_EXIT_IO : CZ_EXIT_FAIL;
    }
    if (memcmp(u->comm_r_last_old.b, comm_r_last.b, 32) != 0) {
        fprintf(stderr, "%s: %s/sealed does not match the comm_r_last of %s/p_aux\n", cmd->name, cache, cache);
        cz_fil_snap_update_free(u);
        return CZ_EXIT_IO;
    }
    return 0;
}

static int cmd_encode(int argc, char **argv) {
    cz_args a;
    int rc = cz_opts_parse(&a, &enc_cmd, argc, argv);
    if (rc >= 0) return rc;
    if (cz_opt_given(&a, "--bincode-dir")) return cz_usage_error(&enc_cmd, "--bincode-dir is for `snap vanilla`");
    cz_fil_snap_update u;
    if ((rc = do_encode(&enc_cmd, &a, &u)) != 0) return rc;
    const char *out = cz_opt_str(&a, "-o", NULL);
    rc = make_dir(out);
    if (!rc) rc = cz_write_file_in("cuzk snap", out, "sealed", u.new_replica, u.proof->sector_size);
    uint8_t paux[64];
    memcpy(paux, u.comm_c.b, 32);
    memcpy(paux + 32, u.comm_r_last_new.b, 32);
    if (!rc) rc = cz_write_file_in("cuzk snap", out, "p_aux", paux, 64);
    char h[4][65], js[640];
    cz_hex32_format(h[0], u.comm_r_old.b);
    cz_hex32_format(h[1], u.comm_r_new.b);
    cz_hex32_format(h[2], u.comm_d_new.b);
    cz_hex32_format(h[3], u.comm_r_last_new.b);
    int n = snprintf(js, sizeof js,
                     "{\"registered_proof\":\"%s\",\"registered_proof_id\":%d,\"h\":%u,\"comm_r_old\":\"%s\","
                     "\"comm_r_new\":\"%s\",\"comm_d_new\":\"%s\",\"comm_r_last_new\":\"%s\"}\n",
                     u.proof->name, u.proof->id, u.h, h[0], h[1], h[2], h[3]);
    if (!rc) rc = cz_write_file_in("cuzk snap", out, "update.json", js, (size_t)n);
    if (!rc) fputs(js, stdout);
    cz_fil_snap_update_free(&u);
    return rc;
}

static int write_envelope(const char *name, const cz_fil_snap_request *r, const char *out) {
    uint8_t *buf;
    size_t len;
    cz_status st = cz_fil_snap_request_encode(r, &buf, &len);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: cannot encode the request: %s\n", name, cz_status_str(st));
        return CZ_EXIT_FAIL;
    }
    char what[64];
    snprintf(what, sizeof what, "%s: -o", name);
    int rc = 0;
    FILE *f = cz_out_open(out, true, what, &rc);
    if (f) {
        fwrite(buf, 1, len, f);
        rc = cz_out_close(f, out, what);
    }
    free(buf);
    return rc;
}

static int cmd_vanilla(int argc, char **argv) {
    cz_args a;
    int rc = cz_opts_parse(&a, &van_cmd, argc, argv);
    if (rc >= 0) return rc;
    cz_fil_snap_update u;
    if ((rc = do_encode(&van_cmd, &a, &u)) != 0) return rc;
    cz_fil_snap_request r;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_snap_prove(&u, &r, &err);
    cz_fil_snap_update_free(&u);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk snap vanilla: %s\n", err.msg[0] ? err.msg : cz_status_str(st));
        return CZ_EXIT_FAIL;
    }
    const char *bdir = cz_opt_str(&a, "--bincode-dir", NULL);
    if (bdir) rc = make_dir(bdir);
    for (size_t k = 0; bdir && !rc && k < r.npartitions; k++) {
        uint8_t *b;
        size_t bl;
        if (cz_fil_snap_partition_to_bincode(&r.partitions[k], r.proof, &b, &bl) != CZ_OK) {
            rc = CZ_EXIT_FAIL;
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "partition-%zu.bin", k);
        rc = cz_write_file_in("cuzk snap", bdir, name, b, bl);
        free(b);
    }
    if (!rc) rc = write_envelope("cuzk snap vanilla", &r, cz_opt_str(&a, "-o", NULL));
    if (!rc) {
        char h[3][65];
        cz_hex32_format(h[0], r.comm_r_old.b);
        cz_hex32_format(h[1], r.comm_r_new.b);
        cz_hex32_format(h[2], r.comm_d_new.b);
        fprintf(stderr, "%s: %zu partition(s); comm_r_old %s comm_r_new %s comm_d_new %s\n", r.proof->name,
                r.npartitions, h[0], h[1], h[2]);
    }
    cz_fil_snap_request_free(&r);
    return rc;
}

/* ---- pack ---------------------------------------------------------------------------------- */
static const cz_opt pack_opts[] = {
    CZ_STR("--registered-proof", "NAME|ID", "RegisteredUpdateProof (required)"),
    CZ_STR("--comm-r-old", "HEX32", "comm_r_old, 64 hex digits of its 32 LE bytes (required)"),
    CZ_STR("--comm-r-new", "HEX32", "comm_r_new (required)"),
    CZ_STR("--comm-d-new", "HEX32", "comm_d_new (required)"),
    CZ_STR("--bincode-dir", "DIR", "read partition-<k>.bin for every partition k (instead of FILE...)"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "request.bin", .help = "the envelope ('-' = stdout)"},
    {0},
};
static const cz_cmd pack_cmd = {
    .name = "cuzk snap pack",
    .synopsis = "--registered-proof P --comm-r-old H --comm-r-new H --comm-d-new H -o request.bin\n"
                "                 (--bincode-dir DIR | PARTITION.bin...)",
    .opts = pack_opts,
    .max_pos = CZ_POS_MAX,
};

static int cmd_pack(int argc, char **argv) {
    cz_args a;
    int rc = cz_opts_parse(&a, &pack_cmd, argc, argv);
    if (rc >= 0) return rc;
    rc = 0;
    const char *pname = cz_opt_str(&a, "--registered-proof", NULL);
    const cz_fil_snap_proof *p = pname ? cz_fil_snap_proof_by_name(pname) : NULL;
    if (!p) return cz_usage_error(&pack_cmd, "--registered-proof: missing or unknown");
    uint8_t comm[3][32];
    static const char *cn[3] = { "--comm-r-old", "--comm-r-new", "--comm-d-new" };
    for (int i = 0; i < 3; i++)
        if (!cz_hex32_parse(cz_opt_str(&a, cn[i], NULL), comm[i]))
            return cz_usage_error(&pack_cmd, "%s: 64 hex digits required", cn[i]);
    if (!cz_opt_given(&a, "-o")) return cz_usage_error(&pack_cmd, "-o is required");
    const char *bdir = cz_opt_str(&a, "--bincode-dir", NULL);
    if (bdir && a.npos) return cz_usage_error(&pack_cmd, "--bincode-dir and partition files exclude each other");
    size_t n = bdir ? p->partitions : (size_t)a.npos;
    if (!n) return cz_usage_error(&pack_cmd, "no partition proofs given");
    uint8_t *bufs[CZ_FIL_SNAP_MAX_PARTITIONS] = { 0 };
    size_t lens[CZ_FIL_SNAP_MAX_PARTITIONS] = { 0 };
    if (n > CZ_FIL_SNAP_MAX_PARTITIONS) return cz_usage_error(&pack_cmd, "too many partition proofs");
    for (size_t k = 0; k < n && !rc; k++) {
        char path[4096];
        if (bdir) snprintf(path, sizeof path, "%s/partition-%zu.bin", bdir, k);
        else snprintf(path, sizeof path, "%s", a.pos[k]);
        bufs[k] = cz_read_file(path, &lens[k], NULL);
        if (!bufs[k]) {
            fprintf(stderr, "cuzk snap pack: %s: %s\n", path, strerror(errno));
            rc = CZ_EXIT_IO;
        }
    }
    if (!rc) {
        cz_fil_snap_request r;
        cz_errbuf err = { { 0 } };
        cz_status st = cz_fil_snap_request_from_parts(&r, (unsigned)p->id, comm[0], comm[1], comm[2],
                                                      (const uint8_t *const *)bufs, lens, n, &err);
        if (st != CZ_OK) {
            fprintf(stderr, "cuzk snap pack: %s\n", err.msg);
            rc = CZ_EXIT_IO;
        } else {
            rc = write_envelope("cuzk snap pack", &r, cz_opt_str(&a, "-o", NULL));
            cz_fil_snap_request_free(&r);
        }
    }
    for (size_t k = 0; k < n; k++) free(bufs[k]);
    return rc;
}

/* ---- check ------------------------------------------------------------------------------------ */
static const cz_opt check_opts[] = { {0} };
static const cz_cmd check_cmd = {
    .name = "cuzk snap check",
    .synopsis = "FILE",
    .about = "Parses a SnapDeals request envelope, verifies every partition natively and prints its public inputs.\n",
    .opts = check_opts,
    .max_pos = 1,
};

static int cmd_check(int argc, char **argv) {
    cz_args a;
    int rc = cz_opts_parse(&a, &check_cmd, argc, argv);
    if (rc >= 0) return rc;
    if (a.npos != 1) return cz_usage_error(&check_cmd, "one request file is required");
    size_t len;
    uint8_t *buf = cz_read_file(a.pos[0], &len, NULL);
    if (!buf) {
        fprintf(stderr, "cuzk snap check: %s: %s\n", a.pos[0], strerror(errno));
        return CZ_EXIT_IO;
    }
    cz_fil_snap_request r;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_snap_request_parse(&r, buf, len, &err);
    free(buf);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk snap check: %s: %s\n", a.pos[0], err.msg);
        return CZ_EXIT_IO;
    }
    st = cz_fil_snap_check(&r, &err);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk snap check: %s: %s\n", a.pos[0], err.msg);
        cz_fil_snap_request_free(&r);
        return CZ_EXIT_FAIL;
    }
    printf("%s: ok, %s, %zu partition(s)\n", a.pos[0], r.proof->name, r.npartitions);
    for (unsigned k = 0; k < r.npartitions; k++) {
        cz_fr pub[4];
        size_t n;
        if (cz_fil_snap_public_inputs(&r, k, pub, 4, &n, &err) != CZ_OK) continue;
        printf("partition %u:", k);
        for (size_t i = 0; i < n; i++) {
            uint8_t b[32];
            char h[65];
            cz_fr_to_bytes_le(b, &pub[i]);
            cz_hex32_format(h, b);
            printf(" %s", h);
        }
        printf("\n");
    }
    cz_fil_snap_request_free(&r);
    return 0;
}

/* ---- dispatch --------------------------------------------------------------------------------- */
static const cz_opt snap_opts[] = { {0} };
static const cz_cmd snap_cmd = {
    .name = "cuzk snap",
    .synopsis = "encode|vanilla|pack|check ... (cuzk snap SUBCOMMAND --help)",
    .about = "Filecoin SnapDeals (EmptySectorUpdate): encode new data into a sealed sector (cuzk seal --cache-dir),\n"
             "make the vanilla partition proofs as a request envelope, pack Curio's bincode proofs, check an envelope.\n",
    .opts = snap_opts,
    .max_pos = 1,
    .stop_at_pos = true,
};

int cz_cmd_snap(int argc, char **argv) {
    cz_args a;
    int rc = cz_opts_parse(&a, &snap_cmd, argc, argv);
    if (rc >= 0) return rc;
    if (a.next >= argc) return cz_usage_error(&snap_cmd, "a subcommand is required (encode, vanilla, pack, check)");
    const char *sub = argv[a.next];
    int sargc = argc - a.next;
    char **sargv = argv + a.next;
    if (!strcmp(sub, "encode")) return cmd_encode(sargc, sargv);
    if (!strcmp(sub, "vanilla")) return cmd_vanilla(sargc, sargv);
    if (!strcmp(sub, "pack")) return cmd_pack(sargc, sargv);
    if (!strcmp(sub, "check")) return cmd_check(sargc, sargv);
    return cz_usage_error(&snap_cmd, "unknown subcommand %s", sub);
}
