/*
 * Verification of a Filecoin C2 (PoRep) proof:
 *
 *   cuzk verify --c1 c1.json --proof proof.bin [--circuit porep-2k]
 *               [--vk FILE.vk | --params-dir DIR]
 *
 * --c1: the C1 output the proof was made from (filecoin-proofs-api JSON or
 *   Curio's wrapper); it gives the registered proof, replica_id, comm_d,
 *   comm_r and seed, from which the public inputs are derived exactly as
 *   rust-fil-proofs' verify_seal does.
 * --proof: the C2 proof bytes, 192 per partition (bellperson layout).
 * --circuit: optional; must then name the C1's circuit (porep-2k, ...).
 * --vk: a bellperson verifying key (.vk). Without it the published key of
 *   the registered proof is taken from --params-dir, else
 *   $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters,
 *   and its BLAKE2b digest is checked against parameters.json first.
 * Prints "ok: ..." and exits 0 when every partition proof is valid; else
 * prints the reason on stderr and exits 1 (2: usage).
 *
 * The `cuzk verify` front end dispatches here when --c1 is given.
 */
#include "cuzk/fil_c1.h"
#include "cuzk/fil_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cz_cmd_fil_verify(int argc, char **argv);

static int usage(void) {
    fprintf(stderr, "usage: cuzk verify --c1 c1.json --proof proof.bin [--circuit ID] "
                    "[--vk FILE.vk | --params-dir DIR]\n");
    return 2;
}

/* msg already names the file where the library knows it */
static int fail(const char *what, const char *msg) {
    if (what) fprintf(stderr, "cuzk verify: %s: %s\n", what, msg);
    else fprintf(stderr, "cuzk verify: %s\n", msg);
    return 1;
}

static uint8_t *slurp(const char *path, size_t max, size_t *len, cz_errbuf *e) {
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        cz_err(e, CZ_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    uint8_t *b = malloc(max + 1);
    if (!b) {
        fclose(f);
        cz_err(e, CZ_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    size_t n = fread(b, 1, max + 1, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || n > max) {
        cz_err(e, bad ? CZ_ERR_IO : CZ_ERR_FORMAT, bad ? "%s: read error" : "%s: larger than a C2 proof can be",
               path);
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

int cz_cmd_fil_verify(int argc, char **argv) {
    const char *c1_path = NULL, *proof_path = NULL, *circuit = NULL, *vk_path = NULL, *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char **slot = !strcmp(argv[i], "--c1")           ? &c1_path
                          : !strcmp(argv[i], "--proof")        ? &proof_path
                          : !strcmp(argv[i], "--circuit")      ? &circuit
                          : !strcmp(argv[i], "--vk")           ? &vk_path
                          : !strcmp(argv[i], "--params-dir")   ? &dir
                          : NULL;
        if (!slot || i + 1 >= argc) {
            fprintf(stderr, "cuzk verify: %s '%s'\n", slot ? "missing value for" : "unknown option", argv[i]);
            return usage();
        }
        *slot = argv[++i];
    }
    if (!c1_path || !proof_path || (vk_path && dir)) return usage();

    cz_errbuf e = {{0}};
    cz_fil_c1 c1;
    if (cz_fil_c1_read_file(&c1, c1_path, &e) != CZ_OK) return fail(NULL, e.msg);
    const cz_fil_seal_proof *p = c1.registered_proof;
    int rc = 1;
    uint8_t *proof = NULL;
    size_t proof_len = 0;
    cz_groth16_vk vk = {0};
    char vk_buf[1024];
    if (circuit && strcmp(circuit, p->circuit_id) != 0) {
        fprintf(stderr, "cuzk verify: --circuit %s, but %s is a %s (%s) C1 output\n", circuit, c1_path,
                p->circuit_id, p->name);
        goto done;
    }
    /* 126 partitions (non-interactive 32/64GiB) is the most there is */
    proof = slurp(proof_path, 256 * CZ_GROTH16_PROOF_BYTES, &proof_len, &e);
    if (!proof) {
        fail(NULL, e.msg);
        goto done;
    }
    if (!vk_path) {
        cz_fil_params_set s;
        if (cz_fil_params_set_porep(&s, p) != CZ_OK ||
            cz_fil_params_path(&s, dir, CZ_FIL_PARAMS_FILE_VK, vk_buf, sizeof vk_buf) != CZ_OK) {
            fail("vk", "cannot name the verifying key file");
            goto done;
        }
        vk_path = vk_buf;
        if (cz_fil_params_check_digest(vk_path, NULL, &e) != CZ_OK) {
            fail("published verifying key", e.msg);
            goto done;
        }
    }
    if (cz_bp_vk_read_file(&vk, vk_path, &e) != CZ_OK) {
        fail(NULL, e.msg);
        goto done;
    }
    unsigned bad;
    cz_status st = cz_fil_porep_verify(&vk, &c1, proof, proof_len, &bad, &e);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk verify: INVALID %s proof: %s\n", p->name, e.msg);
        goto done;
    }
    printf("ok: %s, %u partition proof(s) valid (%zu public inputs each)\n", p->name, p->partitions,
           cz_fil_porep_public_input_count(p));
    rc = 0;
done:
    cz_bp_vk_free(&vk);
    free(proof);
    cz_fil_c1_free(&c1);
    return rc;
}
