/*
 * cuzk — command-line front end. `cuzk <command> [options]`; `cuzk help`.
 * Each command lives in its own file (bench_<suite>.c, ...) and parses its
 * own options (opts.h); this file only dispatches. Exit statuses: commands.h
 * and docs/cli.md.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "bench_util.h"
#include "commands.h"
#include "cuzk/field.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"

#ifndef CZ_VERSION
#error "CZ_VERSION (the project version) must be defined by the build"
#endif

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} command_t;

static const command_t bench_suites[] = {
#ifdef CZ_HAVE_BENCH_FIELD
    {"field", cz_bench_field, "field, group and pairing ns/op, both back-ends"},
#endif
#ifdef CZ_HAVE_BENCH_NTT
    {"ntt", cz_bench_ntt, "NTT over Fr: --log-n K --threads T [--quotient]"},
#endif
#ifdef CZ_HAVE_BENCH_MSM
    {"msm", cz_bench_msm, "Pippenger MSM: --group g1|g2 --log-n K --threads T"},
#endif
    {"prove", cz_bench_prove, "one partition end to end: --circuit ID | --preset S --threads T [--vs-snarkjs]"},
#ifdef CZ_HAVE_BENCH_MERKLE
    {"merkle", cz_bench_merkle, "Merkle tree building: --log-leaves K --threads T"},
#endif
#ifdef CZ_HAVE_BENCH_R1CS
    {"r1cs", cz_bench_r1cs, "recording, witness generation, SpMV: [--blocks N] [--mul N] --threads T"},
#endif
#ifdef CZ_HAVE_BENCH_SYNTH
    {"synth", cz_bench_synth, "synthesis of a PoRep preset: --preset S --threads T"},
#endif
#ifdef CZ_HAVE_BENCH_CUDA
    {"cuda", cz_bench_cuda, "CUDA kernels vs the CPU (needs a GPU)"},
#endif
    {"sdr", cz_bench_sdr, "Filecoin SDR sealing phases: --sector-size 8MiB --threads T"},
    {"params", cz_bench_params, "parameter file load: digest, trusted and full parse, cache GB/s: --file F.params"},
    {"fil-synth", cz_bench_fil_synth, "Filecoin PoRep C2 synthesis of one partition: --circuit porep-2k|...|porep-32g --threads T"},
#ifdef CZ_HAVE_BENCH_BATCH
    {"batch", cz_bench_batch, "engine batch: --count N --concurrency J [--circuit ID] [--partitions P] [--plot F.png]"},
    {"single", cz_bench_single, "engine, one partition at a time (pipelining off), for comparison with batch"},
    {"stress", cz_bench_stress, "engine stress: random priorities, cancels, duplicate ids, bad requests"},
#endif
    {NULL, NULL, NULL},
};

static const command_t commands[] = {
    {"setup", cz_cmd_setup, "trusted setup of a circuit: --circuit ID [-o FILE.params] [--zkey F.zkey]"},
    {"prove", cz_cmd_prove, "prove: --circuit ID --params F --payload P -o proof.bin | --zkey --wtns --proof --public"},
    {"verify", cz_cmd_verify, "verify: --circuit ID --params F --payload P --proof proof.bin | --vk --proof --public | --c1 C1 --proof --vk"},
    {"export-wtns", cz_cmd_export_wtns, "a partition's witness as snarkjs .wtns: --circuit ID --payload P -o F"},
    {"export-json", cz_cmd_export_json, "vk, proofs, public inputs as snarkjs JSON: --circuit ID --params F -o DIR"},
    {"seal", cz_cmd_seal, "Filecoin PC1+PC2+C1 of a 2KiB/8MiB/512MiB sector: --sector-size S --prover-id --sector-id --ticket --seed -o c1.json"},
    {"circuit-info", cz_cmd_circuit_info, "circuit shape and R1CS fingerprint: --circuit ID [--json] [--streaming]"},
    {"c1", cz_cmd_c1, "c1 check FILE: verify a Filecoin C1 output (filecoin-proofs-api JSON or Curio's wrapper)"},
    {"post", cz_cmd_post, "Filecoin Winning/WindowPoSt: post vanilla (request from sealed sectors) | post check FILE"},
    {"snap", cz_cmd_snap, "Filecoin SnapDeals: snap encode | vanilla (request from a sealed sector) | pack | check FILE"},
    {"store", cz_cmd_store, "the shared job store of cuzkd nodes: store nodes --conninfo C [--json]"},
#ifdef CZ_HAVE_CMD_GEN_VANILLA
    {"gen-vanilla", cz_cmd_gen_vanilla, "random sector + vanilla proof: --preset S --partitions N --seed S -o F"},
#endif
#ifdef CZ_HAVE_CMD_CLIENT
    {"client", cz_cmd_client, "talk to a running cuzkd: see `cuzk client --help`"},
#endif
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk <command> [options]    (cuzk <command> --help: its options)\n\ncommands:\n");
    for (size_t i = 0; commands[i].name; i++) fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "  %-12s %s\n  %-12s %s\n  %-12s %s\n\nbench suites:\n", "bench",
            "<suite> [--json] [options]: a benchmark (cuzk bench <suite> --help)", "version",
            "the version and the CPU back-end (also --version)", "help", "[COMMAND]: this text, or COMMAND's");
    for (size_t i = 0; bench_suites[i].name; i++)
        fprintf(f, "  %-8s %s\n", bench_suites[i].name, bench_suites[i].help);
    fprintf(f, "\nexit status: 0 ok, 1 invalid proof / failed, 2 usage error, 3 input could not be read or\n"
               "parsed, 4 job failed (client), 5 timed out, job still running (client); docs/cli.md\n");
}

static int version(void)
{
    /* what the arithmetic dispatches to on this machine: cheap to ask */
    double ratio;
    const char *lanes = cz_msm_lanes_chosen(&ratio);
    printf("cuzk %s\nfield back-end: %s\nmsm simd: %s\nntt simd: %s\n", CZ_VERSION,
           cz_ff_backend_name(cz_ff_get_backend()), cz_msm_simd_available() ? "yes" : "no",
           cz_ntt_simd_available() ? "yes" : "no");
    /* the AVX2 lanes are a measured choice: say what was measured */
    if (ratio > 0)
        printf("msm lanes: %s (AVX2 + MULX products measured at %.2fx the time of MULX's; taken at <= %.2f)\n",
               lanes, ratio, CZ_MSM_AVX2_MAX_RATIO);
    else
        printf("msm lanes: %s\n", lanes);
    double nr, nl;
    const char *nn = cz_cli_ntt_lanes(&nr, &nl);
    if (nr > 0)
        printf("ntt butterflies: %s (AVX2 + MULX ones measured at %.2fx the time of the scalar ones; taken at <= "
               "%.2f)\n",
               nn, nr, nl);
    else
        printf("ntt butterflies: %s\n", nn);
#ifdef CZ_HAVE_BENCH_CUDA
    printf("cuda: built in\n");
#endif
    return fflush(stdout) == 0 ? CZ_EXIT_OK : CZ_EXIT_FAIL;
}

static const command_t *find(const command_t *t, const char *name)
{
    for (size_t i = 0; t[i].name; i++)
        if (!strcmp(t[i].name, name)) return &t[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CZ_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || (!strcmp(cmd, "help") && argc == 2)) {
        usage(stdout);
        return CZ_EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        if (argc > 2) {
            fprintf(stderr, "cuzk %s: unexpected argument '%s'\n", cmd, argv[2]);
            return CZ_EXIT_USAGE;
        }
        return version();
    }
    if (!strcmp(cmd, "help")) {
        /* `cuzk help prove` = `cuzk prove --help`; `cuzk help bench ntt` too */
        bool bench = !strcmp(argv[2], "bench") && argc > 3;
        const command_t *c = bench ? find(bench_suites, argv[3]) : find(commands, argv[2]);
        if (!c && strcmp(argv[2], "bench") != 0) {
            fprintf(stderr, "cuzk help: unknown command '%s' (see cuzk help)\n", argv[2]);
            return CZ_EXIT_USAGE;
        }
        if (!c && bench) {
            fprintf(stderr, "cuzk help bench: unknown suite '%s' (see cuzk help)\n", argv[3]);
            return CZ_EXIT_USAGE;
        }
        if (!c) {
            usage(stdout);
            return CZ_EXIT_OK;
        }
        char *hv[] = {(char *)c->name, "--help", NULL};
        return c->fn(2, hv);
    }
    if (!strcmp(cmd, "bench")) {
        if (argc < 3) {
            fprintf(stderr, "cuzk bench: a suite is required (see cuzk help)\n");
            return CZ_EXIT_USAGE;
        }
        if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
            usage(stdout);
            return CZ_EXIT_OK;
        }
        const command_t *s = find(bench_suites, argv[2]);
        if (s) return s->fn(argc - 2, argv + 2);
        fprintf(stderr, "cuzk bench: unknown suite '%s' (see cuzk help)\n", argv[2]);
        return CZ_EXIT_USAGE;
    }
    const command_t *c = find(commands, cmd);
    if (c) return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "cuzk: unknown command '%s' (see cuzk help)\n", cmd);
    return CZ_EXIT_USAGE;
}
