/*
 * cuzk circuit-info --circuit ID [--json] [--streaming | --record]
 *                   [--stream-above N] [--dump-json FILE]
 *
 * The shape of a circuit of the prover's registry and its R1CS fingerprint
 * (bellpepper-core TestConstraintSystem::hash(), cuzk/r1cs_hash.h):
 * constraints (the circuit's own, without the rows the prover appends),
 * public inputs with ONE, aux, nonzeros of A, B, C after normalisation and
 * the digest — the numbers tests/vectors/filecoin/circuits.json gives for
 * the reference's circuits.
 *
 * A counting pass runs first (nothing stored). Circuits with more than
 * --stream-above constraints (default 2^22) are then fingerprinted by the
 * streaming pass, which holds one constraint at a time (the 32GiB PoRep
 * circuit has 130M constraints: its matrices would need tens of GB); smaller
 * ones are recorded as a PCE and fingerprinted from its matrices. Both give
 * the same answer; --streaming / --record force one. --dump-json writes the
 * raw constraints for tools/r1cs_fingerprint.py (an independent check).
 *
 * Circuit ids: whatever the prover back-end's registry resolves
 * (src/prover/circuits_registry.c: mulchain-N, shaped-12 .. shaped-20 now;
 * the Filecoin circuits once they are registered there), through the
 * registry's own shape synth function.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "commands.h"
#include "opts.h"
#include "cuzk/r1cs_hash.h"
#include "prover/prover_internal.h"

int cz_cmd_circuit_info(int argc, char **argv);

static const cz_opt info_opts[] = {
    CZ_STR("--circuit", "ID", "a circuit of the prover registry (mulchain-N, shaped-12 .. shaped-20, porep-*)"),
    CZ_FLAG("--json", "one JSON object instead of the table"),
    CZ_FLAG("--streaming", "force the streaming fingerprint (one constraint at a time)"),
    CZ_FLAG("--record", "force recording a PCE and fingerprinting its matrices"),
    CZ_NUM("--stream-above", "N", 0, LLONG_MAX, "stream circuits above N constraints (default 4194304)"),
    CZ_STR("--dump-json", "FILE", "write the raw constraints for tools/r1cs_fingerprint.py"),
    {0},
};
static const cz_cmd info_cmd = {
    .name = "cuzk circuit-info",
    .synopsis = "--circuit ID [--json] [--streaming | --record] [--stream-above N] [--dump-json FILE]",
    .about = "  prints constraints, inputs (with ONE), aux, nnz of A/B/C and the R1CS fingerprint\n"
             "  (bellpepper TestConstraintSystem::hash); circuits above --stream-above constraints\n"
             "  are hashed streaming, without storing the matrices",
    .opts = info_opts,
};

static int fail(const char *what, cz_status st, const char *detail)
{
    fprintf(stderr, "cuzk circuit-info: %s: %s%s%s\n", what, cz_status_str(st), detail && *detail ? ": " : "",
            detail ? detail : "");
    return 1;
}

static cz_status by_pce(cz_synth_fn fn, const void *ctx, cz_r1cs_fingerprint *fp)
{
    cz_pce *pce = NULL;
    cz_status st = cz_pce_record(&pce, fn, ctx, NULL);
    if (st == CZ_OK)
        st = cz_r1cs_fingerprint_pce(pce, fp);
    cz_pce_free(pce);
    return st;
}

int cz_cmd_circuit_info(int argc, char **argv)
{
    cz_args a;
    int prc = cz_opts_parse(&a, &info_cmd, argc, argv);
    if (prc >= 0)
        return prc;
    const char *id = cz_opt_str(&a, "--circuit", NULL);
    const char *dump = cz_opt_str(&a, "--dump-json", NULL);
    bool json = cz_opt_flag(&a, "--json");
    bool force_stream = cz_opt_flag(&a, "--streaming");
    bool force_record = cz_opt_flag(&a, "--record");
    long long above = cz_opt_num(&a, "--stream-above", 1LL << 22);
    if (!id)
        return cz_usage_error(&info_cmd, "--circuit ID is required");
    if (force_stream && force_record)
        return cz_usage_error(&info_cmd, "--streaming and --record exclude each other");

    const circuit_kind *kind = cz__find_kind(id);
    if (!kind) {
        /* 1, not 2: the registry, not the command line, decides what exists */
        fprintf(stderr, "cuzk circuit-info: --circuit: unknown circuit '%s'\n", id);
        return CZ_EXIT_FAIL;
    }
    cz_errbuf e = {{0}};
    void *shape = NULL;
    cz_status st = kind->resolve(id, &shape, &e);
    if (st != CZ_OK)
        return fail(id, st, e.msg);
    cz_synth_fn fn = NULL;
    const void *ctx = NULL;
    st = kind->shape_synth(shape, &fn, &ctx);
    int rc = 0;
    if (st != CZ_OK) {
        rc = fail(id, st, "no shape synth function");
        goto out;
    }

    if (dump) {
        FILE *f = fopen(dump, "w");
        if (!f) {
            fprintf(stderr, "cuzk circuit-info: --dump-json %s: cannot create: %s\n", dump, strerror(errno));
            rc = CZ_EXIT_IO;
            goto out;
        }
        st = cz_r1cs_dump_json(fn, ctx, f);
        if (fclose(f) != 0 && st == CZ_OK)
            st = CZ_ERR_IO;
        if (st != CZ_OK) {
            rc = fail("dump", st, dump);
            goto out;
        }
    }

    /* counting pass: decides the method and is the reference for both */
    cz_r1cs_fingerprint cnt, fp;
    st = cz_r1cs_count_stream(fn, ctx, &cnt);
    if (st != CZ_OK) {
        rc = fail("counting", st, NULL);
        goto out;
    }
    bool stream = force_stream || (!force_record && cnt.constraints > (uint64_t)above);
    st = stream ? cz_r1cs_fingerprint_stream(fn, ctx, &fp, NULL) : by_pce(fn, ctx, &fp);
    if (st == CZ_OK && (fp.constraints != cnt.constraints || fp.inputs != cnt.inputs || fp.aux != cnt.aux))
        st = CZ_ERR_MISMATCH;
    if (st != CZ_OK) {
        rc = fail(stream ? "streaming fingerprint" : "recording", st, NULL);
        goto out;
    }
    char hex[65];
    cz_r1cs_fingerprint_hex(&fp, hex);
    const char *method = stream ? "streaming" : "pce";
    if (json) {
        printf("{\"circuit\":\"%s\",\"constraints\":%llu,\"inputs\":%llu,\"public_inputs\":%llu,\"aux\":%llu,"
               "\"nnz_a\":%llu,\"nnz_b\":%llu,\"nnz_c\":%llu,\"nnz_a_plus_input_rows\":%llu,"
               "\"digest\":\"%s\",\"method\":\"%s\"}\n",
               id, (unsigned long long)fp.constraints, (unsigned long long)fp.inputs,
               (unsigned long long)(fp.inputs - 1), (unsigned long long)fp.aux, (unsigned long long)fp.nnz_a,
               (unsigned long long)fp.nnz_b, (unsigned long long)fp.nnz_c,
               (unsigned long long)fp.nnz_a_with_input_rows, hex, method);
    } else {
        printf("circuit      %s\n"
               "constraints  %llu (without the %llu appended input rows)\n"
               "inputs       %llu (%llu public + ONE)\n"
               "aux          %llu\n"
               "nnz_a        %llu (%llu with the input rows)\n"
               "nnz_b        %llu\n"
               "nnz_c        %llu\n"
               "digest       %s (bellpepper TestConstraintSystem::hash)\n"
               "method       %s\n",
               id, (unsigned long long)fp.constraints, (unsigned long long)fp.inputs,
               (unsigned long long)fp.inputs, (unsigned long long)(fp.inputs - 1), (unsigned long long)fp.aux,
               (unsigned long long)fp.nnz_a, (unsigned long long)fp.nnz_a_with_input_rows,
               (unsigned long long)fp.nnz_b, (unsigned long long)fp.nnz_c, hex, method);
    }
    if (fflush(stdout) != 0)
        rc = 1;
out:
    kind->free_shape(shape);
    return rc;
}
