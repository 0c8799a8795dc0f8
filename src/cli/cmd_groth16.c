/*
 * `cuzk setup`, `cuzk prove`, `cuzk verify`, `cuzk export-wtns`: Groth16 on
 * files, for cuzk's own circuits (parameters in the bellperson layout with a
 * sidecar) and for snarkjs/circom files (.zkey, .wtns, .r1cs, JSON).
 */
#include "bench_util.h"
#include "cli_util.h"
#include "commands.h"
#include "opts.h"
#include "cuzk/prover.h"
#include "cuzk/snarkjs.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* path "-" is stdin (one input per command can come from a pipe) */
static uint8_t *slurp(const char *what, const char *path, size_t *len)
{
    bool std_in = !strcmp(path, "-");
    FILE *f = std_in ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s %s: cannot open: %s\n", what, path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap + 1);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = realloc(buf, 2 * cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool bad = ferror(f) != 0;
    if (!std_in) fclose(f);
    if (bad || !buf) {
        fprintf(stderr, "%s %s: %s\n", what, path, bad ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* path "-": stdout (not a terminal for binary data). 0 or an exit status. */
static int spit(const char *what, const char *path, const void *data, size_t len, bool binary)
{
    int rc = 0;
    FILE *f = cz_out_open(path, binary, what, &rc);
    if (!f) return rc;
    fwrite(data, 1, len, f);
    return cz_out_close(f, path, what);
}

/* "dir/name.params" -> base "dir/name" (the sidecar and cache sit beside it) */
static char *base_of(const char *params)
{
    if (!params) return NULL;
    char *b = strdup(params);
    size_t n = strlen(b);
    if (n > 7 && !strcmp(b + n - 7, ".params")) b[n - 7] = 0;
    return b;
}

/* cz_status -> exit status: what could not be read or parsed is CZ_EXIT_IO;
 * the rest (unsatisfied witness, back-end failure) CZ_EXIT_FAIL */
static int exit_of(cz_status st)
{
    switch (st) {
    case CZ_OK: return CZ_EXIT_OK;
    case CZ_ERR_IO:
    case CZ_ERR_FORMAT:
    case CZ_ERR_TRUNCATED:
    case CZ_ERR_NOT_FOUND:
    case CZ_ERR_MISMATCH: /* e.g. parameters of another circuit */
    case CZ_ERR_NOT_CANONICAL:
    case CZ_ERR_ENCODING_FLAGS:
    case CZ_ERR_INFINITY_ENCODING:
    case CZ_ERR_NOT_ON_CURVE:
    case CZ_ERR_NOT_IN_SUBGROUP:
    case CZ_ERR_NO_SQRT:
    case CZ_ERR_IDENTITY: return CZ_EXIT_IO;
    default: return CZ_EXIT_FAIL;
    }
}

static int fail(const char *what, cz_status st, const cz_errbuf *e)
{
    /* for verify, UNSATISFIED means the pairing check failed: say so */
    const char *s = (!strcmp(what, "verify") && st == CZ_ERR_UNSATISFIED) ? "INVALID proof" : cz_status_str(st);
    fprintf(stderr, "cuzk %s: %s%s%s\n", what, s, e->msg[0] ? ": " : "", e->msg);
    return exit_of(st);
}

/* Options of the native back-end, shared by the tables below. */
#define OPT_THREADS CZ_NUM("--threads", "T", 0, 1024, "threads, the calling one included (0 = one per CPU)")
#define OPT_PARAM_DIR CZ_STR("--param-dir", "DIR", "parameter store, where ID.* go without -o/--params (default $CUZK_PARAM_DIR, else ./cuzk-params)")
#define OPT_PARAMS                                                                                                \
    CZ_STR("--params", "FILE.params", "parameter file (its .meta/.cache/.pce sit beside it; default "            \
                                      "DIR/ID.params)")
#define OPT_VALIDATE                                                                                              \
    CZ_STR("--params-validate", "trusted|full", "how a Filecoin ceremony file is read (docs/parameters.md)")
#define OPT_PAYLOAD                                                                                               \
    CZ_STR("--payload", "FILE", "the job's payload (a vanilla proof / C1 JSON; '-' = stdin); mulchain-N: "       \
                                "optional, {\"x0\": \"<decimal>\"}")
#define OPT_PARTS CZ_NUM("--partitions", "N", 1, 65536, "partitions of the job (default 1)")

/* The value of an option the shared helpers below read, NULL when not
 * given or when this command does not declare it. */
static const char *opt_if(const cz_args *a, const char *name)
{
    for (size_t i = 0; a->cmd->opts[i].name; i++)
        if (!strcmp(a->cmd->opts[i].name, name)) return cz_opt_str(a, name, NULL);
    return NULL;
}

/* --params-validate trusted|full: how a digest-checked Filecoin ceremony
 * file is read (docs/parameters.md); local setups are always read fully. */
static int make_backend(cz_engine_backend *be, const cz_args *a, const cz_cmd *c, bool auto_setup)
{
    const char *pv = opt_if(a, "--params-validate");
    if (!pv) pv = "trusted";
    if (strcmp(pv, "trusted") && strcmp(pv, "full"))
        return cz_usage_error(c, "--params-validate: expected trusted or full, got '%s'", pv);
    cz_prover_config pc = {.param_dir = cz_opt_str(a, "--param-dir", cz_default_param_dir()),
                           .threads = (unsigned)cz_opt_num(a, "--threads", 0),
                           .auto_setup = auto_setup,
                           .log = stderr,
                           .params_validate_full = !strcmp(pv, "full")};
    cz_errbuf e = {{0}};
    cz_status st = cz_prover_backend_create(be, &pc, &e);
    return st == CZ_OK ? 0 : fail("backend", st, &e);
}

/* mulchain-N takes an empty payload (x0 = 1); every other circuit needs
 * one, and "no input" from deep in a parser would not say which option */
static bool needs_payload(const char *circuit) { return strncmp(circuit, "mulchain-", 9) != 0; }

/* The arguments every native-circuit command shares: --circuit, --params
 * (base of the .params/.meta/.cache files), --payload, --partitions, and
 * optionally --proof; files are read here. */
typedef struct {
    const char *circuit;
    char *base;
    uint8_t *payload, *proof;
    size_t payload_len, proof_len;
    long parts;
} job_args;

static void job_args_free(job_args *j)
{
    free(j->base);
    free(j->payload);
    free(j->proof);
}

/* 0 on success; otherwise the exit status, after a message. */
static int job_args_load(job_args *j, const cz_args *a, const cz_cmd *c, bool need_payload, bool need_proof)
{
    memset(j, 0, sizeof *j);
    j->circuit = cz_opt_str(a, "--circuit", NULL);
    j->parts = (long)cz_opt_num(a, "--partitions", 1);
    const char *payload_path = cz_opt_str(a, "--payload", NULL);
    const char *proof_path = opt_if(a, "--proof");
    if (!j->circuit) return cz_usage_error(c, "--circuit ID is required");
    if (!payload_path && need_payload && needs_payload(j->circuit))
        return cz_usage_error(c, "--payload FILE is required for circuit %s", j->circuit);
    if (need_proof && !proof_path) return cz_usage_error(c, "--proof FILE is required");
    if (payload_path && proof_path && !strcmp(payload_path, "-") && !strcmp(proof_path, "-"))
        return cz_usage_error(c, "--payload and --proof cannot both be stdin");
    char wp[64], wq[64];
    snprintf(wp, sizeof wp, "%s: --payload", c->name);
    snprintf(wq, sizeof wq, "%s: --proof", c->name);
    if ((payload_path && !(j->payload = slurp(wp, payload_path, &j->payload_len))) ||
        (proof_path && !(j->proof = slurp(wq, proof_path, &j->proof_len)))) {
        job_args_free(j);
        return CZ_EXIT_IO;
    }
    j->base = base_of(opt_if(a, "--params"));
    return 0;
}

static const cz_opt setup_opts[] = {
    CZ_STR("--circuit", "ID", "the circuit (required)"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "FILE.params",
     .help = "where the parameters go (default DIR/ID.params)"},
    CZ_STR("--zkey", "FILE.zkey", "also export the parameters as a snarkjs .zkey"),
    CZ_FLAG("--force", "replace existing parameter files (and the .zkey); without it they are refused"),
    OPT_PARAM_DIR,
    OPT_THREADS,
    {0},
};
static const cz_cmd setup_cmd = {
    .name = "cuzk setup",
    .synopsis = "--circuit ID [-o FILE.params] [--zkey FILE.zkey] [--force] [--threads T]",
    .about = "  ID: mulchain-N | shaped-12 | shaped-14 | shaped-16 | shaped-18 | shaped-20 |\n"
             "      porep-2k | porep-8m | porep-512m | porep-32g | porep-64g (Filecoin PoRep C2)\n"
             "  writes FILE.params and FILE.vk (bellperson layout), FILE.meta (sidecar), FILE.cache, FILE.pce\n"
             "  Local parameters from a random setup are for testing only: Filecoin's chain accepts\n"
             "  proofs made with the ceremony's v28 parameter files alone.",
    .opts = setup_opts,
};

int cz_cmd_setup(int argc, char **argv)
{
    cz_args a;
    int rc = cz_opts_parse(&a, &setup_cmd, argc, argv);
    if (rc >= 0) return rc;
    const char *circuit = cz_opt_str(&a, "--circuit", NULL);
    const char *out = cz_opt_str(&a, "-o", NULL);
    const char *zkey = cz_opt_str(&a, "--zkey", NULL);
    if (!circuit) return cz_usage_error(&setup_cmd, "--circuit ID is required");
    if (out && !strcmp(out, "-")) return cz_usage_error(&setup_cmd, "-o: a setup writes several files, '-' cannot name them");
    cz_engine_backend be;
    if ((rc = make_backend(&be, &a, &setup_cmd, true)) != 0) return rc;
    char *base = base_of(out);
    /* without -o the prover writes <param-dir>/<id>.* (the .vk too) */
    char dflt[4096];
    snprintf(dflt, sizeof dflt, "%s/%s", cz_opt_str(&a, "--param-dir", cz_default_param_dir()), circuit);
    const char *where = base ? base : dflt;
    cz_errbuf e = {{0}};
    double t0 = cz_now_ns();
    bool force = cz_opt_flag(&a, "--force");
    cz_status st = cz_prover_setup(&be, circuit, base, zkey, force, &e);
    rc = st == CZ_OK ? 0 : fail("setup", st, &e);
    if (st == CZ_ERR_INVALID_ARG && !force) fprintf(stderr, "cuzk setup: (existing files are replaced only with --force)\n");
    if (!rc)
        printf("setup %s: done in %.1f s -> %s.params%s%s\n", circuit, (cz_now_ns() - t0) / 1e9, where,
               zkey ? ", " : "", zkey ? zkey : "");
    free(base);
    cz_prover_backend_destroy(&be);
    return rc;
}

/* `cuzk prove` and `cuzk verify` serve several kinds of input; each option
 * names the modes it belongs to, so one given in the wrong mode is refused */
enum { M_NATIVE = 1, M_SNARKJS = 2, M_C1 = 4 };

/* The options of a native job, shared by prove and verify. */
#define NATIVE_JOB_OPTS                                                                                          \
    {.name = "--params", .kind = CZ_OPT_STR, .arg = "FILE.params",                                               \
     .help = "native: parameter file (default DIR/ID.params)", .modes = M_NATIVE},                               \
    {.name = "--param-dir", .kind = CZ_OPT_STR, .arg = "DIR", .help = "native: parameter store (default .)",      \
     .modes = M_NATIVE},                                                                                         \
    {.name = "--params-validate", .kind = CZ_OPT_STR, .arg = "trusted|full",                                     \
     .help = "native: how a Filecoin ceremony file is read", .modes = M_NATIVE},                                 \
    {.name = "--payload", .kind = CZ_OPT_STR, .arg = "FILE",                                                     \
     .help = "native: the job's payload ('-' = stdin; optional for mulchain-N)", .modes = M_NATIVE},             \
    {.name = "--partitions", .kind = CZ_OPT_NUM, .arg = "N", .min = 1, .max = 65536,                            \
     .help = "native: partitions (default 1)", .modes = M_NATIVE}

static const cz_opt prove_opts[] = {
    {.name = "--circuit", .kind = CZ_OPT_STR, .arg = "ID", .help = "native: the circuit", .modes = M_NATIVE},
    NATIVE_JOB_OPTS,
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "FILE",
     .help = "native: the proof, 192 bytes per partition ('-' = stdout, not a terminal)", .modes = M_NATIVE},
    {.name = "--zkey", .kind = CZ_OPT_STR, .arg = "C.zkey", .help = "snarkjs: proving key (selects this mode)",
     .modes = M_SNARKJS},
    {.name = "--wtns", .kind = CZ_OPT_STR, .arg = "C.wtns", .help = "snarkjs: witness", .modes = M_SNARKJS},
    {.name = "--proof", .kind = CZ_OPT_STR, .arg = "FILE.json", .help = "snarkjs: proof output ('-' = stdout)",
     .modes = M_SNARKJS},
    {.name = "--public", .kind = CZ_OPT_STR, .arg = "FILE.json", .help = "snarkjs: public inputs output",
     .modes = M_SNARKJS},
    {.name = "--r1cs", .kind = CZ_OPT_STR, .arg = "C.r1cs", .help = "snarkjs: check the witness against it first",
     .modes = M_SNARKJS},
    {.name = "--check-key", .kind = CZ_OPT_FLAG,
     .help = "snarkjs: test every key point for its curve and subgroup before proving (~25 us a point)",
     .modes = M_SNARKJS},
    {.name = "--tables", .kind = CZ_OPT_FLAG,
     .help = "snarkjs: precomputed MSM tables kept in C.zkey.tables: built and written by the first run (seconds "
             "to a minute), mapped by later ones",
     .modes = M_SNARKJS},
    {.name = "--msm-tables", .kind = CZ_OPT_STR, .arg = "SIZE",
     .help = "snarkjs: with --tables, at most SIZE bytes of tables when they are built (K/M/G; default 4G)",
     .modes = M_SNARKJS},
    {.name = "--timings", .kind = CZ_OPT_FLAG,
     .help = "snarkjs: where the time went (reading, each phase of the proof), on stderr",
     .modes = M_SNARKJS},
    OPT_THREADS,
    {0},
};
static const cz_cmd prove_cmd = {
    .name = "cuzk prove",
    .synopsis = "--circuit ID [--params FILE.params] [--payload P.json] [--partitions N] -o proof.bin\n"
                "   or: cuzk prove --zkey C.zkey --wtns C.wtns --proof proof.json --public public.json\n"
                "        [--r1cs C.r1cs] [--check-key] [--tables [--msm-tables SIZE]] [--timings]",
    .about = "  --payload is required except for mulchain-N; -o - writes the proof to stdout when it is not a\n"
             "  terminal. Exit status: 0 proved, 1 failed, 2 usage, 3 an input could not be read or parsed.",
    .opts = prove_opts,
};

static int snarkjs_prove(const cz_args *a)
{
    const char *zk = cz_opt_str(a, "--zkey", NULL), *wt = cz_opt_str(a, "--wtns", NULL);
    const char *pj = cz_opt_str(a, "--proof", NULL), *pub = cz_opt_str(a, "--public", NULL);
    const char *r1 = cz_opt_str(a, "--r1cs", NULL);
    if (!wt || !pj || !pub) return cz_usage_error(&prove_cmd, "--zkey needs --wtns, --proof and --public");
    if (!strcmp(pj, "-") && !strcmp(pub, "-")) return cz_usage_error(&prove_cmd, "--proof and --public cannot both be stdout");
    cz_errbuf e = {{0}};
    cz_pool *pool = NULL;
    cz_snarkjs_zkey *z = NULL;
    cz_snarkjs_wtns *w = NULL;
    cz_snarkjs_r1cs *r = NULL;
    int rc = CZ_EXIT_FAIL;
    /* --threads counts the calling thread, which takes part in every
     * parallel call: T threads are T - 1 workers (T workers put T + 1
     * threads on T cores, as the prover back-end found) */
    long threads = cz_opt_num(a, "--threads", 0);
    if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    cz_status st = threads > 1 ? cz_pool_create(&pool, (unsigned)(threads - 1), "cz-cli") : CZ_OK;
    /* The query points' tests are not needed for a correct proof:
     * cz_snarkjs_prove refuses any proof a bad point would have changed
     * (see snarkjs.h). The subgroup test is most of the cost of reading a
     * key (~70 s of 75 s at 2^20 on two cores), and the curve test ~10 % of
     * a whole run at 2^18-2^20. --check-key runs both up front; a refused
     * proof runs them to name the point. One proof uses the §4
     * coefficients once: they are read from the file's records, not
     * decoded into an array first (CZ_SNARKJS_COEF_RECORDS). */
    bool check_key = cz_opt_flag(a, "--check-key"), use_tables = cz_opt_flag(a, "--tables");
    uint64_t tables_max = (uint64_t)4 << 30;
    const char *tm = cz_opt_str(a, "--msm-tables", NULL);
    if (tm && !use_tables) {
        cz_pool_destroy(pool);
        return cz_usage_error(&prove_cmd, "--msm-tables needs --tables");
    }
    if (tm && !cz_parse_size(tm, &tables_max)) {
        cz_pool_destroy(pool);
        return cz_usage_error(&prove_cmd, "--msm-tables: '%s' is not a size (bytes, K/M/G/T suffix)", tm);
    }
    const unsigned zflags = CZ_SNARKJS_COEF_RECORDS | (check_key ? 0 : CZ_SNARKJS_NO_QUERY_CHECK);
    const bool timings = cz_opt_flag(a, "--timings");
    double tr0 = cz_now_ns();
    if (st == CZ_OK) st = cz_snarkjs_zkey_read(&z, zk, zflags, pool, &e);
    double tr1 = cz_now_ns();
    if (st == CZ_OK) st = cz_snarkjs_wtns_read(&w, wt, pool, &e);
    double tr2 = cz_now_ns();
    if (st == CZ_OK && r1) {
        size_t bad;
        if ((st = cz_snarkjs_r1cs_read(&r, r1, &e)) == CZ_OK) st = cz_snarkjs_r1cs_check(r, w->w, w->n, &bad, &e);
    }
    double tr3 = cz_now_ns();
    /* --tables: <key>.tables mapped, or built and kept (cz_prover_zkey_tables) */
    cz_groth16_tables *tabs = NULL;
    char tpath[4200] = "";
    if (st == CZ_OK && use_tables) {
        cz_zkey_tables_info ti;
        if ((size_t)snprintf(tpath, sizeof tpath, "%s.tables", zk) >= sizeof tpath)
            st = cz_err(&e, CZ_ERR_INVALID_ARG, "--zkey: path too long for its .tables beside it");
        else
            st = cz_prover_zkey_tables(&tabs, z, tpath, tables_max, NULL, true, pool, &ti, &e);
        if (st == CZ_OK) {
            if (ti.why[0]) fprintf(stderr, "cuzk prove: %s; building the MSM tables again\n", ti.why);
            if (ti.built)
                fprintf(stderr, "cuzk prove: MSM tables (%.1f MB) built in %.1f s%s%s\n",
                        (double)cz_groth16_tables_bytes(tabs) / 1e6, ti.ms / 1e3,
                        ti.written ? ", kept in " : "; cannot keep them: ",
                        ti.written ? tpath : ti.write_error);
            else if (!tabs)
                fprintf(stderr, "cuzk prove: no MSM tables pay for this key within %llu bytes\n",
                        (unsigned long long)tables_max);
        }
    }
    cz_groth16_proof_pts p;
    double t0 = cz_now_ns();
    bool tables_bad = false;
    cz_snarkjs_prove_timings pt = {0};
    if (st == CZ_OK) st = cz_snarkjs_prove_tables(&p, z, tabs, w->w, w->n, pool, NULL, &tables_bad, &pt, &e);
    if (st == CZ_OK && tables_bad) {
        /* the proof made with the tables failed its check and the one made
         * without passed: the file is wrong; the next --tables run rebuilds */
        fprintf(stderr, "cuzk prove: %s gave a proof that failed its check (a corrupt file): proved without it, "
                        "and removed it\n", tpath);
        unlink(tpath);
    }
    if (st == CZ_ERR_NOT_IN_SUBGROUP && !check_key) {
        fprintf(stderr, "cuzk prove: %s; testing the key's points...\n", e.msg);
        cz_errbuf ke = {{0}};
        cz_status kst = cz_snarkjs_zkey_check_points(z, pool, &ke);
        if (kst != CZ_OK) {
            st = kst;
            e = ke;
        }
    }
    if (st == CZ_OK) {
        char *js = NULL, *pubs = NULL;
        if (cz_snarkjs_proof_to_json(&js, &p) == CZ_OK && cz_snarkjs_public_to_json(&pubs, w->w + 1, z->n_public) == CZ_OK) {
            rc = spit("cuzk prove: --proof", pj, js, strlen(js), false);
            if (!rc) rc = spit("cuzk prove: --public", pub, pubs, strlen(pubs), false);
            if (!rc) fprintf(stderr, "proved in %.1f ms: %s, %s\n", (cz_now_ns() - t0) / 1e6, pj, pub);
            if (!rc && timings)
                fprintf(stderr,
                        "timings (ms): read key %.1f, witness %.1f, r1cs check %.1f, tables %.1f; proof: a b c %.1f, "
                        "quotient %.1f, msm A %.1f, B1 %.1f, B2 %.1f, C + H %.1f, finish and self-check %.1f\n",
                        (tr1 - tr0) / 1e6, (tr2 - tr1) / 1e6, (tr3 - tr2) / 1e6, (t0 - tr3) / 1e6, pt.abc_ms,
                        pt.quotient_ms, pt.msm_a_ms, pt.msm_b1_ms, pt.msm_b2_ms, pt.msm_ch_ms, pt.finish_ms);
        }
        free(js);
        free(pubs);
    } else {
        rc = fail("prove", st, &e);
    }
    cz_groth16_tables_free(tabs); /* before the key: they use its arrays */
    cz_snarkjs_r1cs_free(r);
    cz_snarkjs_wtns_free(w);
    cz_snarkjs_zkey_free(z);
    cz_pool_destroy(pool);
    return rc;
}

int cz_cmd_prove(int argc, char **argv)
{
    cz_args a;
    int rc = cz_opts_parse(&a, &prove_cmd, argc, argv);
    if (rc >= 0) return rc;
    if (cz_opt_given(&a, "--zkey")) {
        if ((rc = cz_opts_mode(&a, M_SNARKJS, "with --zkey")) != 0) return rc;
        return snarkjs_prove(&a);
    }
    if ((rc = cz_opts_mode(&a, M_NATIVE, "without --zkey (native proving)")) != 0) return rc;
    const char *out = cz_opt_str(&a, "-o", NULL);
    job_args ja;
    if ((rc = job_args_load(&ja, &a, &prove_cmd, true, false)) != 0) return rc;
    if (!out) {
        job_args_free(&ja);
        return cz_usage_error(&prove_cmd, "-o FILE is required (the proof; '-' = stdout)");
    }
    /* refuse a terminal before the minutes of proving, not after */
    if (!strcmp(out, "-") && isatty(STDOUT_FILENO)) {
        job_args_free(&ja);
        return cz_usage_error(&prove_cmd, "-o -: stdout is a terminal; redirect it or name a file");
    }
    cz_engine_backend be;
    if ((rc = make_backend(&be, &a, &prove_cmd, false)) != 0) {
        job_args_free(&ja);
        return rc;
    }
    size_t len = (size_t)ja.parts * CZ_GROTH16_PROOF_BYTES;
    uint8_t *proof = malloc(len);
    cz_errbuf e = {{0}};
    cz_prover_timings pt;
    double t0 = cz_now_ns();
    cz_status st = proof ? cz_prover_prove(&be, ja.circuit, ja.base, ja.payload, ja.payload_len, (uint32_t)ja.parts,
                                           true, proof, &pt, &e)
                         : CZ_ERR_NOMEM;
    rc = st == CZ_OK ? spit("cuzk prove: -o", out, proof, len, true) : fail("prove", st, &e);
    if (!rc) {
        const cz_groth16_timings *t = &pt.g;
        fprintf(stderr,
                "proved %ld partition(s) in %.1f ms (check %.1f, synth %.1f, ntt %.1f, msm h %.1f l %.1f a %.1f "
                "b_g1 %.1f, b_g2 %.1f, finish %.1f) -> %s\n",
                ja.parts, (cz_now_ns() - t0) / 1e6, pt.check_ms, pt.synth_ms, t->ntt_ms, t->msm_h_ms, t->msm_l_ms,
                t->msm_a_ms, t->msm_b_g1_ms, t->b_g2_ms, t->finish_ms, !strcmp(out, "-") ? "stdout" : out);
    }
    free(proof);
    job_args_free(&ja);
    cz_prover_backend_destroy(&be);
    return rc;
}

static const cz_opt verify_opts[] = {
    {.name = "--circuit", .kind = CZ_OPT_STR, .arg = "ID",
     .help = "native: the circuit; --c1: optional, must be the C1's", .modes = M_NATIVE | M_C1},
    NATIVE_JOB_OPTS,
    {.name = "--proof", .kind = CZ_OPT_STR, .arg = "FILE", .help = "the proof (native, --c1: binary; snarkjs: JSON; '-' = stdin)"},
    {.name = "--vk", .kind = CZ_OPT_STR, .arg = "FILE",
     .help = "snarkjs: vk.json (selects this mode); --c1: a bellperson .vk", .modes = M_SNARKJS | M_C1},
    {.name = "--public", .kind = CZ_OPT_STR, .arg = "FILE.json", .help = "snarkjs: public inputs", .modes = M_SNARKJS},
    {.name = "--c1", .kind = CZ_OPT_STR, .arg = "c1.json",
     .help = "Filecoin: the C1 output the C2 proof was made from (selects this mode)", .modes = M_C1},
    {.name = "--params-dir", .kind = CZ_OPT_STR, .arg = "DIR",
     .help = "--c1 without --vk: where the published .vk is (default $FIL_PROOFS_PARAMETER_CACHE)", .modes = M_C1},
    {.name = "--threads", .kind = CZ_OPT_NUM, .arg = "T", .min = 0, .max = 1024,
     .help = "native: threads (0 = one per CPU)", .modes = M_NATIVE},
    {0},
};
static const cz_cmd verify_cmd = {
    .name = "cuzk verify",
    .synopsis = "--circuit ID [--params FILE.params] [--payload P.json] [--partitions N] --proof proof.bin\n"
                "   or: cuzk verify --vk vk.json --proof proof.json --public public.json\n"
                "   or: cuzk verify --c1 c1.json --proof proof.bin [--circuit porep-2k] [--vk F.vk | --params-dir D]",
    .about = "  Exit status: 0 valid, 1 INVALID proof, 2 usage, 3 an input (proof, payload, parameters, key,\n"
             "  C1) could not be read or parsed.",
    .opts = verify_opts,
};

static int snarkjs_verify(const cz_args *a)
{
    const char *vkp = cz_opt_str(a, "--vk", NULL), *pj = cz_opt_str(a, "--proof", NULL);
    const char *pub = cz_opt_str(a, "--public", NULL);
    if (!pj || !pub) return cz_usage_error(&verify_cmd, "--vk needs --proof and --public");
    if (!strcmp(pj, "-") && !strcmp(pub, "-")) return cz_usage_error(&verify_cmd, "--proof and --public cannot both be stdin");
    size_t l;
    char *vkj = (char *)slurp("cuzk verify: --vk", vkp, &l);
    char *pjj = vkj ? (char *)slurp("cuzk verify: --proof", pj, &l) : NULL;
    char *pubj = pjj ? (char *)slurp("cuzk verify: --public", pub, &l) : NULL;
    cz_errbuf e = {{0}};
    cz_status st = (vkj && pjj && pubj) ? CZ_OK : CZ_ERR_IO;
    int rc = st == CZ_OK ? 0 : CZ_EXIT_IO;
    cz_snarkjs_vk svk = {0};
    cz_groth16_vk vk = {0};
    cz_groth16_pvk *pvk = NULL;
    cz_groth16_proof_pts p;
    cz_fr *x = NULL;
    size_t n = 0;
    /* everything up to the pairing check is reading the inputs */
    if (st == CZ_OK && (st = cz_snarkjs_vk_from_json(&svk, vkj, &e)) != CZ_OK) rc = fail("verify: --vk", st, &e);
    if (st == CZ_OK && (st = cz_snarkjs_vk_to_groth16(&vk, &svk)) != CZ_OK) rc = fail("verify: --vk", st, &e);
    if (st == CZ_OK && (st = cz_groth16_pvk_create(&pvk, &vk)) != CZ_OK) rc = fail("verify: --vk", st, &e);
    if (st == CZ_OK && (st = cz_snarkjs_proof_from_json(&p, pjj, &e)) != CZ_OK) rc = fail("verify: --proof", st, &e);
    if (st == CZ_OK && (st = cz_snarkjs_public_from_json(&x, &n, pubj, &e)) != CZ_OK)
        rc = fail("verify: --public", st, &e);
    if (st != CZ_OK && rc == CZ_EXIT_FAIL) rc = CZ_EXIT_IO;
    if (st == CZ_OK) {
        cz_groth16_proof pr = {p.a, p.b, p.c};
        st = cz_groth16_verify(pvk, &pr, x, n, &e);
        if (st == CZ_OK) {
            printf("OK: proof is valid\n");
        } else {
            fail("verify", CZ_ERR_UNSATISFIED, &e);
            rc = CZ_EXIT_FAIL;
        }
    }
    free(x);
    cz_groth16_pvk_free(pvk);
    free(vk.ic);
    cz_snarkjs_vk_clear(&svk);
    free(vkj);
    free(pjj);
    free(pubj);
    return rc;
}

int cz_cmd_verify(int argc, char **argv)
{
    cz_args a;
    int rc = cz_opts_parse(&a, &verify_cmd, argc, argv);
    if (rc >= 0) return rc;
    /* a Filecoin C2 proof is verified against the C1 output it came from */
    if (cz_opt_given(&a, "--c1")) {
        if ((rc = cz_opts_mode(&a, M_C1, "with --c1")) != 0) return rc;
        return cz_fil_verify_run(&a);
    }
    if (cz_opt_given(&a, "--vk")) {
        if ((rc = cz_opts_mode(&a, M_SNARKJS, "with --vk (snarkjs JSON)")) != 0) return rc;
        return snarkjs_verify(&a);
    }
    if ((rc = cz_opts_mode(&a, M_NATIVE, "without --vk or --c1 (native verification)")) != 0) return rc;
    job_args ja;
    if ((rc = job_args_load(&ja, &a, &verify_cmd, true, true)) != 0) return rc;
    /* a proof that is not parts x 192 bytes of valid points is an invalid
     * proof (1); decoding it here keeps that apart from a parameter file
     * that does not decode (3), which the prover reports alike */
    size_t want = (size_t)ja.parts * CZ_GROTH16_PROOF_BYTES;
    if (ja.proof_len != want) {
        fprintf(stderr, "cuzk verify: INVALID proof: %s has %zu bytes, %ld partition(s) need %zu\n",
                cz_opt_str(&a, "--proof", ""), ja.proof_len, ja.parts, want);
        job_args_free(&ja);
        return CZ_EXIT_FAIL;
    }
    for (long p = 0; p < ja.parts; p++) {
        cz_groth16_proof pr;
        cz_errbuf e = {{0}};
        cz_status st = cz_groth16_proof_decode(&pr, ja.proof + (size_t)p * CZ_GROTH16_PROOF_BYTES, &e);
        if (st != CZ_OK) {
            fprintf(stderr, "cuzk verify: INVALID proof: partition %ld: %s%s%s\n", p, cz_status_str(st),
                    e.msg[0] ? ": " : "", e.msg);
            job_args_free(&ja);
            return CZ_EXIT_FAIL;
        }
    }
    cz_engine_backend be;
    rc = make_backend(&be, &a, &verify_cmd, false);
    if (!rc) {
        cz_errbuf e = {{0}};
        cz_status st = cz_prover_verify(&be, ja.circuit, ja.base, ja.payload, ja.payload_len, (uint32_t)ja.parts,
                                        ja.proof, ja.proof_len, &e);
        if (st == CZ_OK) {
            printf("OK: %ld partition proof(s) valid\n", ja.parts);
        } else {
            rc = fail("verify", st, &e);
            if (st == CZ_ERR_UNSATISFIED) rc = CZ_EXIT_FAIL;
        }
        cz_prover_backend_destroy(&be);
    }
    job_args_free(&ja);
    return rc;
}

static const cz_opt wtns_opts[] = {
    CZ_STR("--circuit", "ID", "the circuit (required)"),
    OPT_PAYLOAD,
    OPT_PARTS,
    CZ_NUM("--partition", "I", 0, 65535, "which partition's witness (default 0; below --partitions)"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "FILE.wtns", .help = "the witness ('-' = stdout)"},
    OPT_PARAM_DIR,
    OPT_THREADS,
    {0},
};
static const cz_cmd wtns_cmd = {
    .name = "cuzk export-wtns",
    .synopsis = "--circuit ID [--payload P.json] [--partitions N] [--partition I] -o out.wtns",
    .opts = wtns_opts,
};

int cz_cmd_export_wtns(int argc, char **argv)
{
    cz_args a;
    int rc = cz_opts_parse(&a, &wtns_cmd, argc, argv);
    if (rc >= 0) return rc;
    const char *out = cz_opt_str(&a, "-o", NULL);
    long part = (long)cz_opt_num(&a, "--partition", 0);
    if (!out) return cz_usage_error(&wtns_cmd, "-o FILE.wtns is required");
    if (!strcmp(out, "-")) return cz_usage_error(&wtns_cmd, "-o: the witness is written to a named file, not '-'");
    job_args ja;
    if ((rc = job_args_load(&ja, &a, &wtns_cmd, true, false)) != 0) return rc;
    if (part >= ja.parts) {
        job_args_free(&ja);
        return cz_usage_error(&wtns_cmd, "--partition %ld: the job has %ld partition(s) (0..%ld)", part, ja.parts,
                              ja.parts - 1);
    }
    cz_engine_backend be;
    rc = make_backend(&be, &a, &wtns_cmd, false);
    if (!rc) {
        cz_errbuf e = {{0}};
        cz_status st = cz_prover_write_wtns(&be, ja.circuit, ja.payload, ja.payload_len, (uint32_t)ja.parts,
                                            (uint32_t)part, out, &e);
        rc = st == CZ_OK ? 0 : fail("export-wtns", st, &e);
        cz_prover_backend_destroy(&be);
    }
    job_args_free(&ja);
    return rc;
}

static const cz_opt json_opts[] = {
    CZ_STR("--circuit", "ID", "the circuit (required)"),
    OPT_PARAMS,
    OPT_PARAM_DIR,
    OPT_VALIDATE,
    OPT_PAYLOAD,
    OPT_PARTS,
    CZ_STR("--proof", "FILE", "the job's proof: also write proof_<i>.json and public_<i>.json"),
    {.name = "-o", .alias = "--out", .kind = CZ_OPT_STR, .arg = "DIR", .help = "output directory (required)"},
    OPT_THREADS,
    {0},
};
static const cz_cmd json_cmd = {
    .name = "cuzk export-json",
    .synopsis = "--circuit ID [--params FILE.params] [--payload P.json --partitions N --proof proof.bin] -o DIR",
    .about = "  writes DIR/vk.json and, with a proof, DIR/proof_<i>.json and DIR/public_<i>.json (snarkjs format)",
    .opts = json_opts,
};

int cz_cmd_export_json(int argc, char **argv)
{
    cz_args a;
    int rc = cz_opts_parse(&a, &json_cmd, argc, argv);
    if (rc >= 0) return rc;
    const char *dir = cz_opt_str(&a, "-o", NULL);
    if (!dir) return cz_usage_error(&json_cmd, "-o DIR is required");
    bool with_proof = cz_opt_given(&a, "--proof");
    job_args ja;
    if ((rc = job_args_load(&ja, &a, &json_cmd, with_proof, false)) != 0) return rc;
    cz_engine_backend be;
    rc = make_backend(&be, &a, &json_cmd, false);
    if (!rc) {
        cz_errbuf e = {{0}};
        cz_status st = cz_prover_export_json(&be, ja.circuit, ja.base, ja.payload, ja.payload_len, (uint32_t)ja.parts,
                                             ja.proof, ja.proof_len, dir, &e);
        rc = st == CZ_OK ? 0 : fail("export-json", st, &e);
        cz_prover_backend_destroy(&be);
    }
    job_args_free(&ja);
    return rc;
}
