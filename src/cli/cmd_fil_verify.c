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
 * prints the reason on stderr and exits 1 when the proof is invalid (also
 * a proof of the wrong length), 3 when the C1 file, the proof file or the
 * key cannot be read or parsed, the published key's digest is wrong, or
 * the C1 is of another circuit than --circuit; 2 on usage errors.
 *
 * The `cuzk verify` front end dispatches here when --c1 is given.
 */
#include "commands.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* msg already names the file where the library knows it; every failure
 * before the pairing check is an input that could not be used */
static int fail(const char *what, const char *msg) {
    if (what) fprintf(stderr, "cuzk verify: %s: %s\n", what, msg);
    else fprintf(stderr, "cuzk verify: %s\n", msg);
    return CZ_EXIT_IO;
}

static uint8_t *slurp(const char *path, size_t max, size_t *len, cz_errbuf *e) {
    *len = 0;
    bool std_in = !strcmp(path, "-");
    FILE *f = std_in ? stdin : fopen(path, "rb");
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
    if (!std_in) fclose(f);
    if (bad || n > max) {
        cz_err(e, bad ? CZ_ERR_IO : CZ_ERR_FORMAT, bad ? "%s: read error" : "%s: larger than a C2 proof can be",
               path);
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

int cz_fil_verify_run(const cz_args *a) {
    const char *c1_path = cz_opt_str(a, "--c1", NULL), *proof_path = cz_opt_str(a, "--proof", NULL);
    const char *circuit = cz_opt_str(a, "--circuit", NULL), *vk_path = cz_opt_str(a, "--vk", NULL);
    const char *dir = cz_opt_str(a, "--params-dir", NULL);
    if (!proof_path) return cz_usage_error(a->cmd, "--c1 needs --proof FILE");
    if (vk_path && dir) return cz_usage_error(a->cmd, "--vk and --params-dir exclude each other");
    if (!strcmp(c1_path, "-") && !strcmp(proof_path, "-"))
        return cz_usage_error(a->cmd, "--c1 and --proof cannot both be stdin");

    cz_errbuf e = {{0}};
    cz_fil_c1 c1;
    if (cz_fil_c1_read_file(&c1, c1_path, &e) != CZ_OK) return fail(NULL, e.msg);
    const cz_fil_seal_proof *p = c1.registered_proof;
    int rc = CZ_EXIT_IO;
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
        rc = CZ_EXIT_FAIL;
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
