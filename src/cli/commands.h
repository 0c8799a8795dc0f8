/* Subcommands of the `cuzk` CLI. Each takes the arguments after its name. */
#ifndef CZ_CLI_COMMANDS_H
#define CZ_CLI_COMMANDS_H

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
int cz_cmd_fil_verify(int argc, char **argv);
int cz_cmd_circuit_info(int argc, char **argv);
int cz_bench_sdr(int argc, char **argv);
int cz_bench_fil_synth(int argc, char **argv);
int cz_bench_params(int argc, char **argv);

#endif
