/*
 * `cuzk setup`, `cuzk prove`, `cuzk verify`, `cuzk export-wtns`: Groth16 on
 * files, for cuzk's own circuits (parameters in the bellperson layout with a
 * sidecar) and for snarkjs/circom files (.zkey, .wtns, .r1cs, JSON).
 */
#include "bench_util.h"
#include "commands.h"
#include "cuzk/prover.h"
#include "cuzk/snarkjs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
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
    fclose(f);
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

static int spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
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

/* bellperson's VerifyingKey::write is the prefix of its .params file
 * (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, u32 BE ic
 * count, ic): copy it to <base>.vk, the file Filecoin nodes verify with. */
static int write_vk(const char *base)
{
    char in[4096], out[4096];
    snprintf(in, sizeof in, "%s.params", base);
    snprintf(out, sizeof out, "%s.vk", base);
    FILE *f = fopen(in, "rb");
    if (!f) return 1;
    uint8_t head[868];
    size_t n = fread(head, 1, sizeof head, f);
    uint32_t nic = n == sizeof head ? (uint32_t)head[864] << 24 | (uint32_t)head[865] << 16 | (uint32_t)head[866] << 8 | head[867] : 0;
    size_t len = 868 + (size_t)nic * 96;
    uint8_t *buf = nic && nic < (1u << 24) ? malloc(len) : NULL;
    int rc = 1;
    if (buf) {
        memcpy(buf, head, sizeof head);
        if (fread(buf + 868, 1, len - 868, f) == len - 868) {
            FILE *g = fopen(out, "wb");
            rc = !g || fwrite(buf, 1, len, g) != len;
            if (g && fclose(g)) rc = 1;
        }
        free(buf);
    }
    fclose(f);
    if (rc) fprintf(stderr, "cuzk setup: cannot write %s\n", out);
    return rc;
}

static int fail(const char *what, cz_status st, const cz_errbuf *e)
{
    /* for verify, UNSATISFIED means the pairing check failed: say so */
    const char *s = (!strcmp(what, "verify") && st == CZ_ERR_UNSATISFIED) ? "INVALID proof" : cz_status_str(st);
    fprintf(stderr, "cuzk %s: %s%s%s\n", what, s, e->msg[0] ? ": " : "", e->msg);
    return 1;
}

/* --params-validate trusted|full: how a digest-checked Filecoin ceremony
 * file is read (docs/parameters.md); local setups are always read fully. */
static int make_backend(cz_engine_backend *be, int argc, char **argv, bool auto_setup)
{
    const char *pv = cz_arg_str(argc, argv, "--params-validate", "trusted");
    if (strcmp(pv, "trusted") && strcmp(pv, "full")) {
        fprintf(stderr, "cuzk: --params-validate must be trusted or full, got '%s'\n", pv);
        return 1;
    }
    cz_prover_config pc = {.param_dir = cz_arg_str(argc, argv, "--param-dir", "."),
                           .threads = (unsigned)cz_arg_long(argc, argv, "--threads", 0),
                           .auto_setup = auto_setup,
                           .log = stderr,
                           .params_validate_full = !strcmp(pv, "full")};
    cz_errbuf e = {{0}};
    cz_status st = cz_prover_backend_create(be, &pc, &e);
    return st == CZ_OK ? 0 : fail("backend", st, &e);
}

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

/* 0 on success; 2 on a usage error (the caller prints its usage); 1 when a
 * file cannot be read (already reported). */
static int job_args_load(job_args *j, int argc, char **argv, bool need_proof)
{
    memset(j, 0, sizeof *j);
    j->circuit = cz_arg_str(argc, argv, "--circuit", NULL);
    j->parts = cz_arg_long(argc, argv, "--partitions", 1);
    const char *payload_path = cz_arg_str(argc, argv, "--payload", NULL);
    const char *proof_path = cz_arg_str(argc, argv, "--proof", NULL);
    if (!j->circuit || j->parts < 1 || j->parts > 65536 || (need_proof && !proof_path)) return 2;
    if ((payload_path && !(j->payload = slurp(payload_path, &j->payload_len))) ||
        (proof_path && !(j->proof = slurp(proof_path, &j->proof_len)))) {
        job_args_free(j);
        return 1;
    }
    j->base = base_of(cz_arg_str(argc, argv, "--params", NULL));
    return 0;
}

int cz_cmd_setup(int argc, char **argv)
{
    const char *circuit = cz_arg_str(argc, argv, "--circuit", NULL);
    const char *out = cz_arg_str(argc, argv, "-o", NULL);
    const char *zkey = cz_arg_str(argc, argv, "--zkey", NULL);
    if (!circuit) {
        fprintf(stderr, "usage: cuzk setup --circuit ID [-o FILE.params] [--zkey FILE.zkey] [--threads T]\n"
                        "  ID: mulchain-N | shaped-12 | shaped-14 | shaped-16 | shaped-18 | shaped-20 |\n"
                        "      porep-2k | porep-8m | porep-512m | porep-32g | porep-64g (Filecoin PoRep C2)\n"
                        "  writes FILE.params and FILE.vk (bellperson layout), FILE.meta (sidecar), FILE.cache, FILE.pce\n"
                        "  Local parameters from a random setup are for testing only: Filecoin's chain accepts\n"
                        "  proofs made with the ceremony's v28 parameter files alone.\n");
        return 2;
    }
    cz_engine_backend be;
    if (make_backend(&be, argc, argv, true)) return 1;
    char *base = base_of(out);
    cz_errbuf e = {{0}};
    double t0 = cz_now_ns();
    cz_status st = cz_prover_setup(&be, circuit, base, zkey, &e);
    int rc = st == CZ_OK ? 0 : fail("setup", st, &e);
    if (!rc) rc = write_vk(base ? base : circuit);
    if (!rc)
        printf("setup %s: done in %.1f s -> %s.params%s%s\n", circuit, (cz_now_ns() - t0) / 1e9,
               base ? base : circuit, zkey ? ", " : "", zkey ? zkey : "");
    free(base);
    cz_prover_backend_destroy(&be);
    return rc;
}

static int snarkjs_prove(int argc, char **argv)
{
    const char *zk = cz_arg_str(argc, argv, "--zkey", NULL), *wt = cz_arg_str(argc, argv, "--wtns", NULL);
    const char *pj = cz_arg_str(argc, argv, "--proof", NULL), *pub = cz_arg_str(argc, argv, "--public", NULL);
    const char *r1 = cz_arg_str(argc, argv, "--r1cs", NULL);
    if (!zk || !wt || !pj || !pub) {
        fprintf(stderr, "usage: cuzk prove --zkey C.zkey --wtns C.wtns --proof proof.json --public public.json "
                        "[--r1cs C.r1cs]\n");
        return 2;
    }
    cz_errbuf e = {{0}};
    cz_pool *pool = NULL;
    cz_snarkjs_zkey *z = NULL;
    cz_snarkjs_wtns *w = NULL;
    cz_snarkjs_r1cs *r = NULL;
    int rc = 1;
    cz_status st = cz_pool_create(&pool, (unsigned)cz_arg_long(argc, argv, "--threads", 0), "cz-cli");
    if (st == CZ_OK) st = cz_snarkjs_zkey_read(&z, zk, 0, pool, &e);
    if (st == CZ_OK) st = cz_snarkjs_wtns_read(&w, wt, &e);
    if (st == CZ_OK && r1) {
        size_t bad;
        if ((st = cz_snarkjs_r1cs_read(&r, r1, &e)) == CZ_OK) st = cz_snarkjs_r1cs_check(r, w->w, w->n, &bad, &e);
    }
    cz_groth16_proof_pts p;
    double t0 = cz_now_ns();
    if (st == CZ_OK) st = cz_snarkjs_prove(&p, z, w->w, w->n, pool, NULL, &e);
    if (st == CZ_OK) {
        char *a = NULL, *b = NULL;
        if (cz_snarkjs_proof_to_json(&a, &p) == CZ_OK && cz_snarkjs_public_to_json(&b, w->w + 1, z->n_public) == CZ_OK &&
            !spit(pj, a, strlen(a)) && !spit(pub, b, strlen(b))) {
            fprintf(stderr, "proved in %.1f ms: %s, %s\n", (cz_now_ns() - t0) / 1e6, pj, pub);
            rc = 0;
        }
        free(a);
        free(b);
    } else {
        rc = fail("prove", st, &e);
    }
    cz_snarkjs_r1cs_free(r);
    cz_snarkjs_wtns_free(w);
    cz_snarkjs_zkey_free(z);
    cz_pool_destroy(pool);
    return rc;
}

int cz_cmd_prove(int argc, char **argv)
{
    if (cz_arg_str(argc, argv, "--zkey", NULL)) return snarkjs_prove(argc, argv);
    const char *out = cz_arg_str(argc, argv, "-o", NULL);
    job_args ja;
    int rc = out ? job_args_load(&ja, argc, argv, false) : 2;
    if (rc == 2)
        fprintf(stderr, "usage: cuzk prove --circuit ID [--params FILE.params] [--payload P.json] [--partitions N] "
                        "-o proof.bin\n   or: cuzk prove --zkey C.zkey --wtns C.wtns --proof proof.json "
                        "--public public.json [--r1cs C.r1cs]\n");
    if (rc) return rc;
    cz_engine_backend be;
    if (make_backend(&be, argc, argv, false)) {
        job_args_free(&ja);
        return 1;
    }
    size_t len = (size_t)ja.parts * CZ_GROTH16_PROOF_BYTES;
    uint8_t *proof = malloc(len);
    cz_errbuf e = {{0}};
    cz_prover_timings pt;
    double t0 = cz_now_ns();
    cz_status st = proof ? cz_prover_prove(&be, ja.circuit, ja.base, ja.payload, ja.payload_len, (uint32_t)ja.parts,
                                           true, proof, &pt, &e)
                         : CZ_ERR_NOMEM;
    rc = st == CZ_OK ? spit(out, proof, len) : fail("prove", st, &e);
    if (!rc) {
        const cz_groth16_timings *t = &pt.g;
        fprintf(stderr,
                "proved %ld partition(s) in %.1f ms (check %.1f, synth %.1f, ntt %.1f, msm h %.1f l %.1f a %.1f "
                "b_g1 %.1f, b_g2 %.1f, finish %.1f) -> %s\n",
                ja.parts, (cz_now_ns() - t0) / 1e6, pt.check_ms, pt.synth_ms, t->ntt_ms, t->msm_h_ms, t->msm_l_ms,
                t->msm_a_ms, t->msm_b_g1_ms, t->b_g2_ms, t->finish_ms, out);
    }
    free(proof);
    job_args_free(&ja);
    cz_prover_backend_destroy(&be);
    return rc;
}

static int snarkjs_verify(int argc, char **argv)
{
    const char *vkp = cz_arg_str(argc, argv, "--vk", NULL), *pj = cz_arg_str(argc, argv, "--proof", NULL);
    const char *pub = cz_arg_str(argc, argv, "--public", NULL);
    if (!vkp || !pj || !pub) {
        fprintf(stderr, "usage: cuzk verify --vk vk.json --proof proof.json --public public.json\n");
        return 2;
    }
    size_t l;
    char *vkj = (char *)slurp(vkp, &l), *pjj = (char *)slurp(pj, &l), *pubj = (char *)slurp(pub, &l);
    cz_errbuf e = {{0}};
    cz_status st = (vkj && pjj && pubj) ? CZ_OK : CZ_ERR_IO;
    cz_snarkjs_vk svk = {0};
    cz_groth16_vk vk = {0};
    cz_groth16_pvk *pvk = NULL;
    cz_groth16_proof_pts p;
    cz_fr *x = NULL;
    size_t n = 0;
    if (st == CZ_OK) st = cz_snarkjs_vk_from_json(&svk, vkj, &e);
    if (st == CZ_OK) st = cz_snarkjs_vk_to_groth16(&vk, &svk);
    if (st == CZ_OK) st = cz_groth16_pvk_create(&pvk, &vk);
    if (st == CZ_OK) st = cz_snarkjs_proof_from_json(&p, pjj, &e);
    if (st == CZ_OK) st = cz_snarkjs_public_from_json(&x, &n, pubj, &e);
    if (st == CZ_OK) {
        cz_groth16_proof pr = {p.a, p.b, p.c};
        st = cz_groth16_verify(pvk, &pr, x, n, &e);
    }
    int rc = st == CZ_OK ? (printf("OK: proof is valid\n"), 0) : fail("verify", st, &e);
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
    /* a Filecoin C2 proof is verified against the C1 output it came from */
    if (cz_arg_str(argc, argv, "--c1", NULL)) return cz_cmd_fil_verify(argc, argv);
    if (cz_arg_str(argc, argv, "--vk", NULL)) return snarkjs_verify(argc, argv);
    job_args ja;
    int rc = job_args_load(&ja, argc, argv, true);
    if (rc == 2)
        fprintf(stderr, "usage: cuzk verify --circuit ID [--params FILE.params] [--payload P.json] [--partitions N] "
                        "--proof proof.bin\n   or: cuzk verify --vk vk.json --proof proof.json --public public.json\n"
                        "   or: cuzk verify --c1 c1.json --proof proof.bin [--circuit porep-2k] [--vk F.vk | --params-dir D]\n");
    if (rc) return rc;
    cz_engine_backend be;
    rc = make_backend(&be, argc, argv, false);
    if (!rc) {
        cz_errbuf e = {{0}};
        cz_status st = cz_prover_verify(&be, ja.circuit, ja.base, ja.payload, ja.payload_len, (uint32_t)ja.parts,
                                        ja.proof, ja.proof_len, &e);
        rc = st == CZ_OK ? (printf("OK: %ld partition proof(s) valid\n", ja.parts), 0) : fail("verify", st, &e);
        cz_prover_backend_destroy(&be);
    }
    job_args_free(&ja);
    return rc;
}

int cz_cmd_export_wtns(int argc, char **argv)
{
    const char *out = cz_arg_str(argc, argv, "-o", NULL);
    long part = cz_arg_long(argc, argv, "--partition", 0);
    job_args ja;
    int rc = out ? job_args_load(&ja, argc, argv, false) : 2;
    if (rc == 0 && (part < 0 || part >= ja.parts)) {
        job_args_free(&ja);
        rc = 2;
    }
    if (rc == 2)
        fprintf(stderr, "usage: cuzk export-wtns --circuit ID [--payload P.json] [--partitions N] [--partition I] "
                        "-o out.wtns\n");
    if (rc) return rc;
    cz_engine_backend be;
    rc = make_backend(&be, argc, argv, false);
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

int cz_cmd_export_json(int argc, char **argv)
{
    const char *dir = cz_arg_str(argc, argv, "-o", NULL);
    job_args ja;
    int rc = dir ? job_args_load(&ja, argc, argv, false) : 2;
    if (rc == 2)
        fprintf(stderr, "usage: cuzk export-json --circuit ID [--params FILE.params] [--payload P.json --partitions N "
                        "--proof proof.bin] -o DIR\n  writes DIR/vk.json and, with a proof, DIR/proof_<i>.json and "
                        "DIR/public_<i>.json (snarkjs format)\n");
    if (rc) return rc;
    cz_engine_backend be;
    rc = make_backend(&be, argc, argv, false);
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
