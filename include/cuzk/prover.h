/*
 * cuzk — the production proving back-end: Groth16 on the CPU over cuzk's
 * circuit registry, with a parameter store on disk. It plugs into the
 * engine (cuzk/engine.h) as a cz_engine_backend.
 *
 * Circuits (ids):
 *   mulchain-N       the generic multiplication chain (cuzk/circuits.h),
 *                    N multiplications; payload: {"x0": "<decimal>"} (or
 *                    empty: x0 = 1); partition p proves x0 + p.
 *   shaped-K          the PoRep-shaped presets (cuzk/circuits.h), payload:
 *                    a vanilla proof (docs/vanilla-proof.md) whose
 *                    partition count equals the job's.
 *
 * Parameter store (param_dir), per circuit id:
 *   <id>.pce     recorded constraint system (cz_pce_save; checksummed)
 *   <id>.params  bellperson-layout Groth16 parameters
 *   <id>.meta    sidecar: circuit id, hash and counts, and the size and
 *                SHA-256 fingerprint of the <id>.params it belongs to (a
 *                params file of another circuit, or one replaced without
 *                its .meta, is refused before any proving)
 *   <id>.cache   the parameters converted to the in-memory form, SHA-256
 *                checksummed; loaded by mmap, trusted only while its
 *                checksum, circuit hash and the recorded size and
 *                fingerprint of its source .params match the file there
 *                now (else rebuilt from it); skips re-validation of every
 *                point, which dominates loading at scale
 * On every load the .params must have the exact size its circuit implies
 * (a truncated one is refused, naming its size and the one expected), and
 * is fingerprinted: SHA-256 of its header and 65 blocks spread over it,
 * or of the whole file when it is under 256 MiB or params_validate_full
 * is set. docs/parameters.md has the details.
 * With auto_setup, a missing parameter set is created by a local trusted
 * setup (fine for tests and demos; production uses a ceremony's file).
 *
 * Filecoin circuits (porep-2k ... porep-64g): when <id>.params is absent,
 * the parameters are the ceremony's v28 file in $FIL_PROOFS_PARAMETER_CACHE
 * (default /var/tmp/filecoin-proof-parameters), under its published name.
 * Its BLAKE2b digest is checked against the published one
 * ($CUZK_FIL_PARAMS_DIGESTS may name a JSON file of other digests) once,
 * and remembered in <id>.v28-verified until the file changes; then it is
 * read (trusted unless params_validate_full), shape-checked against the
 * circuit and converted to <id>.cache. Without auto_setup, a missing
 * ceremony file is an error naming its path and digest (no local setup
 * replaces it); with auto_setup (tests, `cuzk setup`) a Filecoin id
 * without <id>.params still gets a local setup. docs/parameters.md has
 * the details.
 *
 * Memory estimate (engine budget): params = the converted parameters +
 * the recorded circuit (freed when the engine unloads the parameters);
 * shared = the NTT domain of the circuit's size (one per size, kept for
 * the life of the process, so charged once and never returned); per
 * partition abc = 3·32·m bytes and rest = witness (32 B per variable) +
 * canonical scalars kept for B_G2 (32 B per variable) + MSM scratch for
 * the whole compute pool (the H and B_G2 MSMs both run on it).
 */
#ifndef CUZK_PROVER_H
#define CUZK_PROVER_H

#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/snarkjs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *param_dir;   /* created if missing */
    unsigned threads;        /* threads that compute, the calling thread included
                                (a pool of threads - 1 workers; 0 = online CPUs) */
    bool auto_setup;         /* create missing parameters by a local setup */
    FILE *log;               /* progress lines (setup, loading); may be NULL */
    /* How a Filecoin ceremony file (see below) is read once its digest has
     * been checked: false = trusted (no subgroup test of the query
     * points; the default), true = full validation. Local setups
     * (<id>.params) are always read fully; with true, their fingerprint
     * is also the SHA-256 of the whole file at any size. */
    bool params_validate_full;
    /* What a request can make the back-end build. Recording a circuit
     * (its constraint system, held in memory while its parameters are
     * loaded) happens before the engine's budget can see its size, so the
     * ids a client may name are bounded here:
     *  - circuits: comma-separated exact ids ("porep-32g") or prefix
     *    patterns ending in '*' ("mulchain-*", "*" = all); spaces around
     *    items are ignored. NULL or "" = every id the back-end knows.
     *  - max_constraints: a circuit with more constraints (counted with
     *    the input rows, known from the id alone; for the few Filecoin ids
     *    whose exact count is not tabulated, an upper bound) is refused
     *    before it is recorded. 0 = CZ_PROVER_DEFAULT_MAX_CONSTRAINTS.
     * Both apply to every call (engine and offline). A refused id is
     * CZ_ERR_NOT_FOUND (not served here) with a message naming the option
     * and the value. Ids must be canonical ("mulchain-300000", never
     * "mulchain-0300000": CZ_ERR_INVALID_ARG naming the canonical form). */
    const char *circuits;
    uint64_t max_constraints;
    /* GPUs to prove on (builds with the CUDA layer, CUZK_HAVE_CUDA): NULL,
     * "" or "auto" = every CUDA device present (none present: the CPU,
     * with one log line "no CUDA device: proving on the CPU"); "none" =
     * the CPU only; "0,2" = those CUDA ordinals (each must open: an error
     * naming it otherwise). Without the CUDA layer, "auto" and "none"
     * prove on the CPU ("CUDA not built: proving on the CPU") and a list
     * is refused (CZ_ERR_UNSUPPORTED). See "GPU proving" below. */
    const char *gpus;
    /* Bytes of precomputed MSM tables each parameter set may hold
     * (cz_groth16_params_build_tables; 0 = none, the default): built when
     * the parameters are loaded (seconds per 2^16 bases), charged to the
     * parameters' estimate, used by every proof on the CPU (a load maps
     * them from <base>.tables when that file holds them: below). Worth it for
     * a daemon proving many small proofs of one circuit: G1 MSMs 1.1-1.4x,
     * G2 1.25x at 2^14-2^18 bases; nothing is planned from 2^20 bases up. */
    uint64_t msm_tables_bytes;
    /* The tables are kept in <base>.tables beside the parameters (written
     * after a build, under a temporary name then renamed; a failed write
     * is a log line) and mapped back by later loads that plan the same
     * tables for the same bases: the file's header, a digest of the bases
     * and one of the whole file are checked first, and anything that does
     * not check out is built again and replaced (docs/parameters.md, "MSM
     * table files"). true: never read or write such a file. */
    bool msm_tables_no_file;
} cz_prover_config;

/* Loads the offline copy of circuit id's parameters at base (NULL: the
 * store), as cz_prover_prove does, and gives it its MSM tables now
 * (msm_tables_bytes: mapped from <base>.tables, or built and kept there)
 * instead of at its first proof; *bytes and *ms (may be NULL): the tables'
 * size and the time taken (0 when they were there). */
CZ_WUR cz_status cz_prover_build_tables(const cz_engine_backend *b, const char *circuit_id, const char *base,
                                        uint64_t *bytes, double *ms, cz_errbuf *err);

/* ---- MSM tables of a snarkjs .zkey (cuzk prove --zkey --tables) ---------- */
typedef struct {
    bool mapped;            /* read from the file */
    bool built;             /* built now (the file was missing or did not check out) */
    bool written;           /* ...and kept in the file */
    char why[512];          /* why an existing file was not used ("" when it was, or there was none) */
    char write_error[512];  /* why a built set could not be kept ("" when it was) */
    double ms;              /* time taken */
} cz_zkey_tables_info;

/* The precomputed MSM tables of z's queries (cz_snarkjs_zkey_tables_bases),
 * kept in path (conventionally <key>.tables; the format of a parameter
 * set's table file, docs/parameters.md "MSM table files"). Mapped when the
 * file checks out for z: its header, each query's base count, the digest
 * of z's bases; not the whole file's digest, as every proof is verified
 * and cz_snarkjs_prove_tables retries without tables that fail it (why:
 * zkey_tables.c). Otherwise, with build, made now: by plan when given
 * (explicit shapes; plan->n must be z's counts), else by
 * cz_groth16_tables_plan_counts within max_bytes on pool; then written
 * under a temporary name and renamed over path (a failed write is
 * info->write_error, the tables are still returned). Without build, or
 * when nothing pays, *out is NULL (CZ_OK): prove without tables. Errors:
 * the build's (CZ_ERR_NOMEM), CZ_ERR_INVALID_ARG for a plan that does not
 * fit z. The tables use z's arrays: free them (cz_groth16_tables_free)
 * before z. */
/* The plan cz_prover_zkey_tables makes without an explicit one:
 * cz_groth16_tables_plan_counts over z's counts, leaving out every query
 * whose bases are mostly the point at infinity (a key's A and B run over
 * every signal; in many circuits most signals are in no A or no B row). */
void cz_prover_zkey_tables_plan(cz_groth16_tables_plan *plan, const cz_snarkjs_zkey *z, uint64_t max_bytes,
                                const cz_pool *pool);
CZ_WUR cz_status cz_prover_zkey_tables(cz_groth16_tables **out, const cz_snarkjs_zkey *z, const char *path,
                                       uint64_t max_bytes, const cz_groth16_tables_plan *plan, bool build,
                                       cz_pool *pool, cz_zkey_tables_info *info, cz_errbuf *err);

#define CZ_PROVER_MAX_GPUS 64

/* GPU proving (docs/design.md, "GPU proving"). With n GPUs opened, engine
 * device i < n proves on GPU i (cz_cuda_prove_start_ex: the quotient and
 * the G1 MSMs on the device, B_G2 on the CPU meanwhile) and any device
 * index >= n on the CPU (engine.devices = n + 1 adds a CPU device that
 * keeps proving when every GPU is quarantined). backend_locks_device is
 * then true: the engine's device lock covers only the device region of a
 * GPU proof (parameter upload, transfers, kernels, read-back), and the
 * whole CPU prove_start of a CPU device. Device faults (CUDA errors,
 * device out of memory or over its size check, a broken context) are
 * CZ_ERR_DEVICE, which the engine retries on another device;
 * CZ_ERR_UNSATISFIED and other input errors stay what they are. A GPU
 * partition's proof is verified (one pairing check with its public
 * inputs) in prove_finish before it leaves the back-end: a wrong result
 * fails with CZ_ERR_DEVICE naming the GPU, not as a bad job. The
 * estimate then also carries device_params_bytes and
 * device_partition_bytes (cz_cuda_device_bytes_for). The parameters made
 * resident on a GPU are identified by a generation stamped at load and
 * released from every GPU when the engine unloads them. */
/* GPUs the back-end proves on (0: the CPU only). */
unsigned cz_prover_backend_gpus(const cz_engine_backend *b);
/* Device memory a device budget may use on GPU i: its free memory when it
 * was opened minus the context's 512 MiB reserve; 0 for i >= the GPUs. */
uint64_t cz_prover_backend_gpu_memory(const cz_engine_backend *b, unsigned i);
/* The line logged at creation ("no CUDA device: proving on the CPU", "2
 * GPU(s): ..."). */
const char *cz_prover_backend_device_summary(const cz_engine_backend *b);

#define CZ_PROVER_DEFAULT_MAX_CONSTRAINTS (1ull << 27)

/* Recorded circuits the back-end holds now and their bytes (a circuit is
 * held while parameters that use it are loaded, by the engine or by the
 * offline calls below; cz_prover_backend_destroy frees the rest). For
 * tests and metrics: once the engine evicts a circuit's parameters, its
 * recorded circuit is gone too (its bytes were part of the parameters'
 * charge). */
size_t cz_prover_recorded_circuits(const cz_engine_backend *b, uint64_t *bytes);

/* Fills *out with a back-end whose ctx owns the pools, the store and the
 * circuit cache. Destroy it after the engine that uses it. */
CZ_WUR cz_status cz_prover_backend_create(cz_engine_backend *out, const cz_prover_config *cfg, cz_errbuf *err);
void cz_prover_backend_destroy(cz_engine_backend *b);

/* The offline calls below find a circuit's files at <base>.params/.meta/
 * .cache/.pce; base NULL means <param_dir>/<circuit_id>. */

/* Ensures the parameter files of circuit_id exist (running a setup if they
 * do not and auto_setup is set) and load cleanly. */
CZ_WUR cz_status cz_prover_ensure_params(const cz_engine_backend *b, const char *circuit_id, const char *base,
                                         cz_errbuf *err);

/* A fresh trusted setup (OS randomness) for circuit_id written to
 * <base>.params/.meta/.cache/.pce and <base>.vk (bellperson's verifying
 * key, the .params prefix), all put in place together. zkey_path (may be NULL): also export
 * the parameters as a snarkjs .zkey.
 * Checked before any work: the directory of <base> (and of zkey_path)
 * must exist or be creatable (only its last level is created, 0755;
 * CZ_ERR_NOT_FOUND naming it otherwise); without force, an existing
 * <base>.params or zkey_path is refused (CZ_ERR_INVALID_ARG naming it).
 * Every file is written under a temporary name in its final directory,
 * fsynced, and renamed over its final name only after the whole setup
 * succeeded (then the directory is fsynced): an interrupted or failed
 * setup leaves the previous files as they were. Temporary files left by a
 * killed setup are removed by the next one. */
CZ_WUR cz_status cz_prover_setup(const cz_engine_backend *b, const char *circuit_id, const char *base,
                                 const char *zkey_path, bool force, cz_errbuf *err);

/* Per-phase sums over the partitions of one cz_prover_prove call (ms). */
typedef struct {
    double check_ms;        /* constraint checker pass (if asked) */
    double synth_ms;        /* witness generation + SpMV (a, b, c) */
    cz_groth16_timings g;   /* the prover's phases */
} cz_prover_timings;

/* Proves every partition of one job without an engine. With check, the
 * witness of each partition is first run through the constraint checker
 * (an unsatisfied one is refused naming the constraint's scope; without
 * it the prover's row check still refuses, naming only the row). proof
 * receives parts × 192 bytes; timings may be NULL. */
CZ_WUR cz_status cz_prover_prove(const cz_engine_backend *b, const char *circuit_id, const char *base,
                                 const uint8_t *payload, size_t payload_len, uint32_t parts, bool check,
                                 uint8_t *proof, cz_prover_timings *timings, cz_errbuf *err);

/* Writes partition `part`'s full assignment (inputs ‖ aux) as a snarkjs
 * .wtns, to prove with a .zkey exported by cz_prover_setup. */
CZ_WUR cz_status cz_prover_write_wtns(const cz_engine_backend *b, const char *circuit_id, const uint8_t *payload,
                                      size_t payload_len, uint32_t parts, uint32_t part, const char *path,
                                      cz_errbuf *err);

/* A payload for circuit_id's partitions that the back-end accepts, for
 * tests and benchmarks: mulchain payloads from seed; porep payloads are
 * generated vanilla proofs of a random sector (seeded). *payload malloc'd. */
CZ_WUR cz_status cz_prover_sample_payload(const cz_engine_backend *b, const char *circuit_id, uint32_t partitions,
                                          uint64_t seed, uint8_t **payload, size_t *len, cz_errbuf *err);

/* snarkjs JSON of a job: <dir>/vk.json (with vk_alphabeta_12), and per
 * partition i <dir>/proof_<i>.json and <dir>/public_<i>.json, so
 * `snarkjs groth16 verify vk.json public_<i>.json proof_<i>.json` checks
 * cuzk's proofs. proof may be NULL (only vk.json is written). */
CZ_WUR cz_status cz_prover_export_json(const cz_engine_backend *b, const char *circuit_id, const char *base,
                                       const uint8_t *payload, size_t payload_len, uint32_t parts,
                                       const uint8_t *proof, size_t proof_len, const char *dir, cz_errbuf *err);

/* Verifies an assembled multi-partition proof of a job offline (same check
 * as the engine's self-verification). */
CZ_WUR cz_status cz_prover_verify(const cz_engine_backend *b, const char *circuit_id, const char *base,
                                  const uint8_t *payload,
                                  size_t payload_len, uint32_t partitions, const uint8_t *proof, size_t proof_len,
                                  cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_PROVER_H */
