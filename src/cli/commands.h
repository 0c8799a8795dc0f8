/* Subcommands of the `cuzk` CLI. Each takes the arguments after its name
 * (argv[0] is the command's own name) and returns the process exit status. */
#ifndef CZ_CLI_COMMANDS_H
#define CZ_CLI_COMMANDS_H

/* Exit statuses, the same for every command (docs/cli.md). Scripts branch
 * on them, so a new failure is mapped onto one of these, never a new
 * number without documenting it. */
enum {
    CZ_EXIT_OK = 0,
    CZ_EXIT_FAIL = 1,       /* the proof is invalid, a check failed, or the operation itself failed */
    CZ_EXIT_USAGE = 2,      /* bad command line: unknown option, bad value, missing argument */
    CZ_EXIT_IO = 3,         /* I/O or input error: a file could not be read, parsed or written */
    CZ_EXIT_JOB_FAILED = 4, /* cuzk client: the daemon reports the job failed or cancelled */
    CZ_EXIT_TIMEOUT = 5,    /* cuzk client: the wait ended with the job still queued/running */
};

#include "opts.h"
/* `cuzk verify --c1 ...` (cmd_fil_verify.c), on the arguments cz_cmd_verify
 * has parsed and checked against the --c1 mode. */
int cz_fil_verify_run(const cz_args *a);

int cz_bench_field(int argc, char **argv);
int cz_bench_ntt(int argc, char **argv);
int cz_bench_msm(int argc, char **argv);
int cz_bench_batch(int argc, char **argv);
int cz_bench_single(int argc, char **argv);
int cz_bench_stress(int argc, char **argv);
int cz_bench_prove(int argc, char **argv);
int cz_bench_merkle(int argc, char **argv);
int cz_bench_r1cs(int argc, char **argv);
int cz_bench_synth(int argc, char **argv);
int cz_bench_cuda(int argc, char **argv);
int cz_cmd_gen_vanilla(int argc, char **argv);
int cz_cmd_client(int argc, char **argv);
int cz_cmd_setup(int argc, char **argv);
int cz_cmd_prove(int argc, char **argv);
int cz_cmd_verify(int argc, char **argv);
int cz_cmd_export_wtns(int argc, char **argv);
int cz_cmd_export_json(int argc, char **argv);
int cz_cmd_seal(int argc, char **argv);
int cz_cmd_c1(int argc, char **argv);
int cz_cmd_snap(int argc, char **argv);
int cz_cmd_post(int argc, char **argv);
int cz_cmd_circuit_info(int argc, char **argv);
int cz_cmd_store(int argc, char **argv);
int cz_bench_sdr(int argc, char **argv);
int cz_bench_fil_synth(int argc, char **argv);
int cz_bench_params(int argc, char **argv);

#endif
