/*
 * cuzk — what a Filecoin C2 proof is checked against: the PoRep circuit's
 * public inputs, bellperson's verifying-key file, the verification of the
 * partition proofs, and the identity of Filecoin's parameter files (names,
 * cache directory, published digests).
 *
 * Reference: rust-fil-proofs 19.1 (storage-proofs-porep
 * stacked/circuit/proof.rs StackedCompound::generate_public_inputs,
 * storage-proofs-core gadgets/por.rs PoRCompound::generate_public_inputs,
 * compound_proof.rs, parameter_cache.rs, parameters.json) and bellperson
 * 0.27 (groth16/verifying_key.rs, proof.rs).
 *
 * Three parts, three translation units, so that a user of one does not
 * link the others' dependencies:
 * - public inputs (src/filecoin/porep_inputs.c): needs only the graph and
 *   challenge code of cz_filecoin;
 * - parameter identity and digests (src/filecoin/fil_params_table.c):
 *   SHA-256, BLAKE2b and the table;
 * - the .vk reader and proof verification (src/filecoin/fil_params.c):
 *   needs cz_groth16 (and so cz_ec / cz_pairing); link cz_groth16 as well.
 */
#ifndef CUZK_FIL_PARAMS_H
#define CUZK_FIL_PARAMS_H

#include "cuzk/fil_c1.h"
#include "cuzk/fil_graph.h"
#include "cuzk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== PoRep C2 public inputs =============================================
 * Partition k of a StackedDrg proof has, in this order (as
 * StackedCompound::generate_public_inputs with k = Some(partition)):
 *   replica_id, comm_d, comm_r                      (domain -> Fr)
 *   then for each of the partition's challenges c (stacked PublicInputs
 *   ::challenges, i.e. cz_fil_porep_challenges):
 *     c                        comm_d inclusion path of the data leaf
 *     p for each of the 6 DRG parents of c (BucketGraph::parents order)
 *     p for each of the 8 expander parents of c (expanded_parents order)
 *     c                        the challenge itself (u64_into_fr)
 *     c                        comm_r_last inclusion path
 *     c                        comm_c inclusion path of c's column
 * Every inclusion input is PoRCompound::generate_public_inputs with
 * private params: the single Fr of the leaf index, which equals the
 * circuit's multipacked auth-path bits (one bit per level of a binary
 * path, log2(arity) bits per level of an 8-ary one, leaf level first,
 * least significant bit first: the index's bits read upwards).
 * So n = 3 + 18 · challenges_per_partition: 39 for 2KiB/8MiB/512MiB, 327
 * for 32GiB/64GiB (the counts circuits.json records). */
#define CZ_FIL_POREP_INPUTS_PER_CHALLENGE 18u

size_t cz_fil_porep_public_input_count(const cz_fil_seal_proof *p);

/* The 18 inputs of one challenge (c < g->nodes, c ≠ 0 in practice) in
 * the order above, Montgomery form. CZ_ERR_INVALID_ARG if c >= g->nodes
 * (the reference's "Challenge out of range"). */
CZ_WUR cz_status cz_fil_porep_challenge_inputs(const cz_fil_graph *g, uint64_t challenge,
                                               cz_fr out[CZ_FIL_POREP_INPUTS_PER_CHALLENGE]);

/* Partition k's public inputs for explicit values. p gives the challenge
 * mechanism and counts; g is the sector's graph (nodes = sector nodes), or
 * NULL to build it from p's porep_id and api version (the registered
 * proof's own graph; pass g for a configuration with another porep_id,
 * e.g. a regression record's). seed / comm_r requirements are those of
 * cz_fil_porep_challenges (interactive and synthetic need seed). out has
 * room for cap elements; *n receives the count. CZ_ERR_INVALID_ARG when
 * cap is too small, k >= p->partitions or g does not fit p;
 * CZ_ERR_NOT_CANONICAL when replica_id, comm_d or comm_r is not a
 * canonical Fr (the reference's into() would panic). err says which. */
CZ_WUR cz_status cz_fil_porep_public_inputs_ex(const cz_fil_seal_proof *p, const cz_fil_graph *g,
                                               const cz_fil_domain *replica_id,
                                               const cz_fil_domain *comm_d,
                                               const cz_fil_domain *comm_r, const uint8_t *seed,
                                               unsigned k, cz_fr *out, size_t cap, size_t *n,
                                               cz_errbuf *err);

/* The same from a C1 output (its registered proof, replica_id, comm_d,
 * comm_r and seed), as filecoin-proofs seal_commit_phase2 / verify_seal
 * derive them. */
CZ_WUR cz_status cz_fil_porep_public_inputs(const cz_fil_c1 *c1, unsigned partition, cz_fr *out,
                                            size_t cap, size_t *n, cz_errbuf *err);

/* ==== bellperson verifying key (.vk) =======================================
 * bellperson VerifyingKey::write: alpha_g1, beta_g1 (G1, 96 bytes
 * uncompressed), beta_g2, gamma_g2 (G2, 192 bytes), delta_g1 (G1),
 * delta_g2 (G2), u32 big-endian ic count, ic points (G1). 868 + 96·n_ic
 * bytes (4708 for PoRep 2KiB / 8MiB / 512MiB: 40 ic points).
 * The reader validates every point fully (flags, canonical coordinates, on
 * curve, in subgroup). Stricter than bellperson in two documented ways:
 * it also refuses the identity for the six fixed points (bellperson does
 * for ic only; an identity there makes every proof check degenerate) and
 * it refuses bytes after the last ic point (bellperson reads a stream and
 * ignores what follows). vk->ic is malloc'd; free with cz_bp_vk_free. */
#define CZ_BP_VK_FIXED_BYTES (3u * 96u + 3u * 192u + 4u)
static inline size_t cz_bp_vk_bytes(size_t n_ic) { return CZ_BP_VK_FIXED_BYTES + 96u * n_ic; }

CZ_WUR cz_status cz_bp_vk_parse(cz_groth16_vk *out, const uint8_t *buf, size_t len, cz_errbuf *err);
CZ_WUR cz_status cz_bp_vk_read_file(cz_groth16_vk *out, const char *path, cz_errbuf *err);
/* VerifyingKey::write into a malloc'd buffer of cz_bp_vk_bytes(n_ic). */
CZ_WUR cz_status cz_bp_vk_serialize(const cz_groth16_vk *vk, uint8_t **out, size_t *len);
/* Frees vk->ic and zeroes *vk; accepts a zeroed struct. */
void cz_bp_vk_free(cz_groth16_vk *vk);

/* ==== C2 PoRep proof verification ===========================================
 * A C2 proof is the partition proofs concatenated, 192 bytes each
 * (bellperson Proof::write: A G1 ‖ B G2 ‖ C G1, compressed). Verifies
 * every partition's proof against vk with the public inputs derived from
 * the C1 output (as StackedCompound::verify: partition k gets
 * generate_public_inputs(k)). CZ_OK: all valid. CZ_ERR_UNSATISFIED: a
 * proof fails the pairing check; CZ_ERR_MISMATCH: proof_len is not
 * 192 · partitions or vk has the wrong number of ic points; a decoding
 * status for a malformed proof. err names the partition; *bad_partition
 * (nullable) receives it (UINT_MAX when not partition-specific).
 * NonInteractivePoRep: filecoin-proofs' seal_commit_phase2 returns a
 * SnarkPack aggregate of the 13 / 126 partition proofs, which this does not
 * verify; it takes the partition proofs themselves
 * (seal_commit_phase2_circuit_proofs) and refuses an aggregate by its
 * length. */
CZ_WUR cz_status cz_fil_porep_verify(const cz_groth16_vk *vk, const cz_fil_c1 *c1,
                                     const uint8_t *proof, size_t proof_len,
                                     unsigned *bad_partition, cz_errbuf *err);

/* ==== parameter files ========================================================
 * File names (parameter_cache.rs): v28-<cache_id>.params / .vk / .meta,
 * cache_id = <cache_prefix>-<hex SHA-256 of the parameter set identifier>.
 * VERSION is 28. Prefixes and identifiers (exact strings, Rust Display of
 * the numbers):
 *   PoRep: "stacked-proof-of-replication-<tree>-sha256_hasher",
 *     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph
 *     {expansion_degree: 8 base_graph: drgraph::BucketGraph{size: <nodes>;
 *     degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges {
 *     layers: <L>, max_count: <challenges per partition> }, tree: <tree> }"
 *     (one line; see fil_params_table.c for the literal format);
 *   Winning/Window PoSt: "proof-of-spacetime-fallback-<tree>",
 *     "FallbackPoSt::PublicParams{sector_size: <bytes>, challenge_count:
 *     <c>, sector_count: <s>}" with winning c = 1, s = 66
 *     (winning_post_setup_params divides the 66 challenges over 66
 *     "sectors"), window c = 10, s = 2 (small sizes), 2349 (32GiB),
 *     2300 (64GiB);
 *   SnapDeals: "empty-sector-update-<tree>" (SHA-256 TreeD/R circuit) or
 *     "empty-sector-update-poseidon-<tree>" (the Poseidon variant),
 *     "empty_sector_update::PublicParams{ sector_nodes: <nodes> }";
 * with <tree> = "merkletree-poseidon_hasher-8-<sub>-<top>" (8-0-0 up to
 * 512MiB, 8-8-0 for 32GiB, 8-8-2 for 64GiB). The API version is in none of
 * them: every version of a size (and the synthetic and non-interactive
 * variants, which keep 2 / 18 challenges per partition for that reason)
 * uses the same files. */
#define CZ_FIL_PARAMS_VERSION 28u
#define CZ_FIL_PARAMS_ENV "FIL_PROOFS_PARAMETER_CACHE"
#define CZ_FIL_PARAMS_DEFAULT_DIR "/var/tmp/filecoin-proof-parameters/"

typedef enum {
    CZ_FIL_CIRCUIT_POREP = 0,
    CZ_FIL_CIRCUIT_WINNING_POST = 1,
    CZ_FIL_CIRCUIT_WINDOW_POST = 2,
    CZ_FIL_CIRCUIT_UPDATE = 3,          /* EmptySectorUpdateCompound */
    CZ_FIL_CIRCUIT_UPDATE_POSEIDON = 4  /* poseidon::EmptySectorUpdateCompound */
} cz_fil_circuit_kind;

/* A parameter set: what the identifier is made of. */
typedef struct {
    cz_fil_circuit_kind circuit;
    uint64_t sector_size;                     /* bytes */
    unsigned tree_sub_arity, tree_top_arity;  /* tree R shape, base arity 8 */
    unsigned layers, challenges_per_partition; /* PoRep */
    unsigned challenge_count, sector_count;   /* PoSt (per-partition setup params) */
} cz_fil_params_set;

typedef enum {
    CZ_FIL_PARAMS_FILE_PARAMS = 0, /* .params */
    CZ_FIL_PARAMS_FILE_VK = 1,     /* .vk */
    CZ_FIL_PARAMS_FILE_META = 2    /* .meta */
} cz_fil_params_file;

/* The parameter set of a registered seal proof (any API version or
 * feature). CZ_ERR_INVALID_ARG on NULL. */
CZ_WUR cz_status cz_fil_params_set_porep(cz_fil_params_set *s, const cz_fil_seal_proof *p);
/* The production parameter set of a circuit kind and sector size (2KiB,
 * 8MiB, 512MiB, 32GiB or 64GiB; CZ_ERR_INVALID_ARG otherwise). PoRep takes
 * the interactive counts (the same for every variant). */
CZ_WUR cz_status cz_fil_params_set_for(cz_fil_params_set *s, cz_fil_circuit_kind circuit,
                                       uint64_t sector_size);

/* ParameterSetMetadata::identifier, NUL-terminated into out (cap bytes;
 * 320 always suffice). CZ_ERR_INVALID_ARG when it does not fit or s is
 * not a known kind. */
CZ_WUR cz_status cz_fil_params_identifier(const cz_fil_params_set *s, char *out, size_t cap);
/* CacheableParameters::cache_identifier: "<prefix>-<64 hex>". */
CZ_WUR cz_status cz_fil_params_cache_id(const cz_fil_params_set *s, char *out, size_t cap);
/* "v28-<cache_id>.<ext>" */
CZ_WUR cz_status cz_fil_params_file_name(const cz_fil_params_set *s, cz_fil_params_file kind,
                                         char *out, size_t cap);
/* The parameter cache directory as the reference's settings give it:
 * $FIL_PROOFS_PARAMETER_CACHE if set and non-empty, else
 * CZ_FIL_PARAMS_DEFAULT_DIR. Points into the environment or a constant. */
const char *cz_fil_params_cache_dir(void);
/* dir (NULL: cz_fil_params_cache_dir()) joined with the file name, with
 * one '/' between them (Path::join). */
CZ_WUR cz_status cz_fil_params_path(const cz_fil_params_set *s, const char *dir,
                                    cz_fil_params_file kind, char *out, size_t cap);

/* ---- published digests (parameters.json of rust-fil-proofs 19.1) -------- */
typedef struct {
    const char *name;    /* file name, "v28-....params" / ".vk" */
    const char *cid;     /* IPFS CID */
    const char *digest;  /* first 32 hex digits of BLAKE2b-512 of the file */
    uint64_t sector_size;
} cz_fil_params_entry;

/* Every v28 PoRep, PoSt and SnapDeals file of parameters.json (44). */
extern const cz_fil_params_entry cz_fil_params_published[];
extern const size_t cz_fil_params_published_count;
/* By exact file name (no directory); NULL when not published. */
const cz_fil_params_entry *cz_fil_params_lookup(const char *file_name);

#define CZ_FIL_PARAMS_DIGEST_HEX 32u
/* The reference's digest of a file: BLAKE2b-512 of its bytes, the first 32
 * lowercase hex digits, NUL-terminated. Streams with a large buffer. */
CZ_WUR cz_status cz_fil_params_file_digest(const char *path, char out[CZ_FIL_PARAMS_DIGEST_HEX + 1],
                                           cz_errbuf *err);
/* As verify_production_entry: the digest of path must equal expected
 * (NULL: the published digest of path's base name, CZ_ERR_NOT_FOUND if it
 * is not in the table). CZ_ERR_MISMATCH with err naming the file, the
 * expected and the actual digest; CZ_ERR_IO if it cannot be read. */
CZ_WUR cz_status cz_fil_params_check_digest(const char *path, const char *expected, cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_PARAMS_H */
