/* Internal to src/prover: the circuit registry and the parameter store. */
#ifndef CZ_PROVER_INTERNAL_H
#define CZ_PROVER_INTERNAL_H

#include "cuzk/prover.h"
#include "cuzk/circuit.h"

/* A family of circuits ("mulchain", "porep") and how to run its jobs. */
typedef struct circuit_kind {
    const char *prefix;
    /* id -> shape descriptor (owned by the caller, freed with free_shape) */
    cz_status (*resolve)(const char *id, void **shape, cz_errbuf *err);
    void (*free_shape)(void *shape);
    /* synth function and a context that produce the circuit's shape */
    cz_status (*shape_synth)(void *shape, cz_synth_fn *fn, const void **ctx);
    cz_status (*parse_job)(void *shape, const uint8_t *payload, size_t len, uint32_t nparts, void **job,
                           cz_errbuf *err);
    void (*free_job)(void *job);
    /* per-partition synth context (freed with free_part) */
    cz_status (*partition)(void *shape, void *job, uint32_t part, cz_synth_fn *fn, void **ctx, cz_errbuf *err);
    void (*free_part)(void *ctx);
    /* the partition's public inputs without the constant one (n of them) */
    cz_status (*public_inputs)(void *shape, void *job, uint32_t part, cz_fr *out, size_t n);
    cz_status (*sample)(void *shape, uint32_t parts, uint64_t seed, cz_pool *pool, uint8_t **payload, size_t *len,
                        cz_errbuf *err);
    /* Constraints of the resolved id (input rows included), known without
     * recording it, so the back-end can refuse an oversized circuit before
     * it builds anything (cz_prover_config.max_constraints). *exact: false
     * when the value is an upper bound (ids whose count is not tabulated). */
    uint64_t (*constraints)(const void *shape, bool *exact);
} circuit_kind;

const circuit_kind *cz__find_kind(const char *id);

/* ---- parameter store (store.c) ---- */
/* Loads (cache, then .params) or creates (auto_setup) the parameters of
 * circuit `id` recorded as pce, at <base>.params/.meta/.cache/.pce. When a
 * setup runs and h_odd is not NULL, it also receives the odd-coset H query
 * (for a snarkjs export); otherwise *h_odd is left untouched.
 * For a Filecoin id (porep-*) without <base>.params and with auto_setup
 * false, the source is the ceremony file (cz__fil_v28_source, read
 * trusted after its digest check; see cz__store_load_ex). With auto_setup
 * true it keeps running a local setup, as `cuzk setup` needs. */
cz_status cz__store_load(const char *base, const char *id, const cz_pce *pce, bool auto_setup, cz_pool *pool,
                         FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out, cz_errbuf *err);
/* Loads (cache, then .params) or creates (auto_setup) the parameters of
 * circuit `id`, as cz__store_load, with the Filecoin ceremony file as the
 * source when <base>.params is absent and o->v28_path is set:
 *  - the file must exist (CZ_ERR_NOT_FOUND naming the path and the
 *    expected digest; never a local setup, whatever auto_setup says);
 *  - its BLAKE2b digest must equal o->v28_digest (CZ_ERR_MISMATCH naming
 *    the file, its digest and the expected one), checked once and then
 *    remembered in <base>.v28-verified (path, size, mtime, ctime, inode,
 *    digest): any change of these, or of the expected digest, checks it
 *    again;
 *  - it is read in o->v28_mode and its counts must fit pce (CZ_ERR_MISMATCH
 *    naming the file and both counts);
 *  - <base>.cache and <base>.meta are written, and the stamp records the
 *    cache's checksum: the cache is used for this file only while the
 *    stamp still matches the file and the cache is the one written from
 *    it (a cache left by a local setup is never taken for the ceremony's).
 * Local parameter files (<base>.params) are always read with full
 * validation, and on every load:
 *  - <base>.meta must name this circuit (CZ_ERR_MISMATCH naming the file,
 *    the recorded circuit id + hash and the requested ones);
 *  - the file must have the exact size the circuit's counts imply
 *    (CZ_ERR_TRUNCATED when shorter, naming the file, its size and the
 *    size expected);
 *  - the size and SHA-256 fingerprint (a sample: header + 64 spread
 *    blocks + the last block; the whole file when it is under 256 MiB or
 *    digest_full) recorded in <base>.meta must be the file's
 *    (CZ_ERR_MISMATCH: replaced without its .meta); a .meta that records
 *    none (older cuzk) is completed after the file was read;
 *  - <base>.cache is used only when its header records this fingerprint;
 *    otherwise it is rebuilt from the .params (a log line says why).
 * A setup run here (auto_setup, <base>.params missing) writes every file
 * to a temporary name, and renames them into place only once all are on
 * disk; an existing .params is never replaced. */
typedef struct {
    bool auto_setup;               /* without v28_path: create a missing set by a local setup */
    bool digest_full;              /* fingerprint local .params files whole, whatever their size */
    const char *v28_path;          /* the ceremony's .params file (NULL: none) */
    const char *v28_digest;        /* its expected digest, 32 lowercase hex */
    cz_params_validate v28_mode;   /* how the ceremony file is read */
} cz__store_opts;

cz_status cz__store_load_ex(const char *base, const char *id, const cz_pce *pce, const cz__store_opts *o,
                            cz_pool *pool, FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out,
                            cz_errbuf *err);

/* ---- durable writes (store.c) ---- */
/* Files written under temporary names ("<dir>/.<name>.<pid>.<seq>.tmp")
 * and put in place together by cz__stage_commit. */
typedef struct {
    size_t n;
    struct {
        char final[4096];
        char tmp[4400];
    } f[8];
} cz__staging;

void cz__stage_init(cz__staging *s);
/* Registers final and returns the temporary path to write it to (owned by
 * s); NULL when s is full or the path too long. */
const char *cz__stage(cz__staging *s, const char *final);
/* fsyncs every temporary file, then renames each over its final name in
 * the order staged, fsyncing the directory after each. noreplace_first:
 * the first file must not exist (CZ_ERR_BUSY naming it, and nothing is
 * renamed). On failure the temporary files not yet renamed are removed. */
cz_status cz__stage_commit(cz__staging *s, bool noreplace_first, cz_errbuf *err);
/* Removes every temporary file (nothing final is touched). */
void cz__stage_abort(cz__staging *s);
/* Removes the temporary files of <path>.* that a process no longer alive
 * left (killed while writing), logging each. */
void cz__stage_sweep(const char *path, FILE *log);
/* The directory path is in must exist and be writable: it is created
 * (0755) when only it is missing; otherwise CZ_ERR_NOT_FOUND naming it and
 * its parent (CZ_ERR_INVALID_ARG / CZ_ERR_IO when it is not a directory /
 * not writable). */
cz_status cz__ensure_dir_of(const char *path, cz_errbuf *err);

/* A fresh local setup of circuit id, written to temporary files staged in
 * s for <base>.params, .cache, .meta (bound to the new .params) and, when
 * write_pce, .pce, in that order; the caller may stage more and then
 * commits or aborts s. *out: the parameters. On error s is aborted. */
cz_status cz__store_setup(const char *base, const char *id, const cz_pce *pce, bool write_pce, cz_pool *pool,
                          FILE *log, cz_g1_affine **h_odd, cz__staging *s, cz_groth16_params **out, cz_errbuf *err);

/* Environment variable naming a JSON file {"<file name>": "<32 hex>", ...}
 * whose digests are used instead of (or besides) the published table: a
 * custom ceremony, or tests. */
#define CZ_FIL_DIGESTS_ENV "CUZK_FIL_PARAMS_DIGESTS"

/* The expected digest of a parameter file name (no directory): the
 * CUZK_FIL_PARAMS_DIGESTS file's entry if it has one, else the published
 * table's. CZ_ERR_NOT_FOUND when neither knows the name; CZ_ERR_IO /
 * CZ_ERR_FORMAT when the override file cannot be read or is not a JSON
 * object of 32-hex-digit strings (err names the file and the key). */
cz_status cz__fil_expected_digest(const char *name, char digest[33], cz_errbuf *err);

/* The ceremony .params file of a Filecoin circuit id (porep-, winning-,
 * wpost- or snap- followed by 2k, 8m, 512m, 32g or 64g): its full path in
 * cz_fil_params_cache_dir() and its expected digest ("" when no digest is
 * known). CZ_OK with path[0] = 0 for any other id; an error when the
 * override file is broken. */
cz_status cz__fil_v28_source(const char *id, char *path, size_t cap, char digest[33], cz_errbuf *err);

/* The store's .cache format on its own (for `cuzk bench params`): write
 * p with the given circuit hash; map one back (checksum, length and hash
 * checked; no circuit shape check). */
cz_status cz__cache_write(const char *path, const cz_groth16_params *p, const uint8_t circuit_hash[32],
                          cz_errbuf *err);
cz_status cz__cache_load(const char *path, const uint8_t circuit_hash[32], cz_groth16_params **out, cz_errbuf *err);

/* ---- MSM table files (tables_file.c; the format is described there) ---- */
/* What a table file's header says. */
typedef struct {
    cz_groth16_tables_plan plan; /* n, t, bits per query; bytes as cz_groth16_params_tables_bytes counts */
    uint64_t off[CZ_GROTH16_NQ]; /* file offset of each query's points */
    uint64_t a_off, b_off;       /* where the tables' bases start in A and in B */
    uint8_t bases_sha[32];       /* digest of the bases the tables were built from */
    uint32_t chunk;              /* the digests' piece size */
} cz__tables_file_info;
/* Checks the header of a table file of len bytes at m against the length
 * and the point sizes of this build (nothing else: no digest, no plan).
 * CZ_ERR_TRUNCATED / CZ_ERR_FORMAT naming the field. */
cz_status cz__tables_file_parse(const uint8_t *m, size_t len, cz__tables_file_info *fi, cz_errbuf *err);
/* Checks the trailing digest of a table file (len >= 4096 + 32):
 * CZ_ERR_FORMAT on a mismatch. Parallel on pool. */
cz_status cz__tables_file_digest_ok(const uint8_t *m, size_t len, cz_pool *pool, cz_errbuf *err);
/* Writes the table set t, built over bases (as cz_groth16_tables_build
 * took them; a_off, b_off: where those start in A and B, recorded for the
 * loader's check), to path as it is (no temporary name: the caller stages
 * it). */
cz_status cz__tables_file_write_set(const char *path, const cz_groth16_tables *t,
                                    const void *const bases[CZ_GROTH16_NQ], uint64_t a_off, uint64_t b_off,
                                    cz_pool *pool, cz_errbuf *err);
/* Maps path as a table set over bases when everything checks out: the
 * header, a_off and b_off, each query's count against n (for the queries
 * the file has tables for), the shape against plan (NULL: whatever sound
 * shape the file has), the digest of the bases against the one recorded,
 * and with file_digest the file's own digest. Errors as
 * cz__tables_file_map; *out NULL then. */
cz_status cz__tables_file_map_set(const char *path, const void *const bases[CZ_GROTH16_NQ],
                                  const size_t n[CZ_GROTH16_NQ], uint64_t a_off, uint64_t b_off,
                                  const cz_groth16_tables_plan *plan, bool file_digest, cz_pool *pool,
                                  cz_groth16_tables **out, cz_errbuf *err);
/* Writes p->tables (which must exist; p must fit pce) to path as it is
 * (no temporary name: the caller stages it). */
cz_status cz__tables_file_write(const char *path, const cz_groth16_params *p, const cz_pce *pce, cz_pool *pool,
                                cz_errbuf *err);
/* Maps path and installs its tables in p when everything checks out: the
 * header, the shape against plan (what the loader plans now), the inputs
 * against pce, the digest of p's bases against the one recorded, the
 * file's digest. CZ_ERR_NOT_FOUND when there is no file; otherwise an
 * error naming the path and what differs (CZ_ERR_MISMATCH: made for other
 * bases or another plan; CZ_ERR_FORMAT / CZ_ERR_TRUNCATED: not a sound
 * file), p untouched. */
cz_status cz__tables_file_map(const char *path, cz_groth16_params *p, const cz_pce *pce,
                              const cz_groth16_tables_plan *plan, cz_pool *pool, cz_errbuf *err);
/* In-memory bytes of parameters for this circuit, from its counts. */
uint64_t cz__params_bytes_for(const cz_pce *pce);

#endif
