/*
 * cuzk — Filecoin's FallbackPoSt (WinningPoSt and WindowPoSt), byte-exact
 * with rust-fil-proofs 19.1 (storage-proofs-post fallback/{circuit,compound,vanilla,utils}.rs, filecoin-proofs
 * api/{winning_post,window_post,post_util}.rs, parameters.rs, constants.rs)
 * and filecoin-proofs-api 19 (registry.rs RegisteredPoStProof).
 *
 * Five parts:
 *   1. the registered PoSt proofs (Go / FFI numbers 0..14) and what each
 *      implies: type, sector size, API version, tree R shape, the circuit's
 *      per-partition sector_count and challenge_count, Curio's circuit id;
 *   2. FallbackPoStSectorProof in bincode (what Curio sends per sector),
 *      reader and writer;
 *   3. a proving request (registered proof, prover id, randomness,
 *      partition, the sector proofs) and its binary envelope;
 *   4. the challenges, the native check, the public inputs and the circuit
 *      (cz_fil_post_synth, a cz_synth_fn);
 *   5. native vanilla generation from a sealed sector (tests, `cuzk post`).
 *
 * ---- 1. Registered proofs -------------------------------------------------
 * id  0..4   StackedDrgWinning{2KiB,8MiB,512MiB,32GiB,64GiB}V1   API 1.0.0
 * id  5..9   StackedDrgWindow{...}V1                              API 1.0.0
 * id 10..14  StackedDrgWindow{...}V1_2                            API 1.2.0
 * (filecoin-proofs-api RegisteredPoStProof::version: every winning proof
 * and window V1 is V1_0_0, window V1_2 is V1_2_0; Curio's
 * registered_post_proof_from_u64 numbers them in this order.)
 * PoStConfig (as_v1_config): winning sector_count 1 (WINNING_POST_SECTOR_COUNT),
 * challenge_count 66; window sector_count 2 up to 512MiB, 2349 at 32GiB,
 * 2300 at 64GiB (WINDOW_POST_SECTOR_COUNT), challenge_count 10.
 * The circuit's parameters (winning_post_setup_params /
 * window_post_setup_params): winning sector_count = 66 / 1 = 66
 * "sectors" of challenge_count 66 / 66 = 1; window: as PoStConfig.
 * Tree R shapes: 8-0-0 up to 512MiB, 8-8-0 at 32GiB, 8-8-2 at 64GiB.
 *
 * ---- challenges --------------------------------------------------------------
 * get_challenge_index(api, sector_index, challenge_count, n):
 *   API 1.0 / 1.1: sector_index · challenge_count + n;  API 1.2: n.
 * Leaf challenge (generate_leaf_challenge_inner): the first 8 bytes, read
 * as a little-endian u64, of SHA-256(randomness ‖ sector_id u64 LE ‖
 * challenge_index u64 LE), mod sector_size / 32 (a u64 modulus, not the
 * 256-bit reduction PoRep uses).
 * Winning (as generate_fallback_sector_challenges with PoStConfig): the
 * single sector gets challenge indexes 0..65 (sector_index 0,
 * challenge_count 66). In the circuit's view (setup params 66 × 1) the 66
 * "sectors" are that sector repeated; circuit sector i holds inclusion
 * proof i and its public input is the leaf of challenge index
 * get_challenge_index(1.0, i, 1, 0) = i: the same leaves.
 * Window partition k (generate_single_window_post_with_vanilla with
 * partition_index k): the request holds that partition's sectors only;
 * sector i of the request has sector_index k · sector_count + i, so its
 * challenge n is get_challenge_index(api, k · sector_count + i, 10, n):
 * k matters for V1 (API 1.0) only. Fewer sectors than sector_count are
 * padded in the circuit and its public inputs by repeating the last one.
 * Winning sector selection (generate_winning_post_sector_challenge):
 * index n < 1 is the first 8 bytes LE of SHA-256(prover_id ‖ randomness ‖
 * n as u64 LE) mod sector_set_len.
 *
 * ---- randomness and prover id ------------------------------------------------
 * Both go through as_safe_commitment (fr32 bytes_into_fr): the 32 bytes
 * must be a canonical little-endian Fr, else the reference refuses the job
 * ("Invalid commitment (randomness)"); so do these calls (CZ_ERR_NOT_CANONICAL).
 * Lotus clears the top two bits of the drawn randomness before it gets
 * here. Hashing uses the 32 bytes as given.
 *
 * Thread safety: everything here is reentrant; a request is read-only to
 * every call but its free.
 */
#ifndef CUZK_FIL_POST_H
#define CUZK_FIL_POST_H

#include "cuzk/circuit.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_tree.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== 1. registered PoSt proofs ============================================ */
typedef enum { CZ_FIL_POST_WINNING = 0, CZ_FIL_POST_WINDOW = 1 } cz_fil_post_type;

#define CZ_FIL_POST_PROOF_COUNT 15u
#define CZ_FIL_WINNING_POST_CHALLENGES 66u /* WINNING_POST_CHALLENGE_COUNT */
#define CZ_FIL_WINDOW_POST_CHALLENGES 10u  /* WINDOW_POST_CHALLENGE_COUNT */

typedef struct {
    unsigned id;               /* RegisteredPoStProof number (Go abi / FFI), 0..14 */
    const char *name;          /* serde name: "StackedDrgWindow32GiBV1_2" */
    const char *circuit_id;    /* Curio's id: "winning-32g", "wpost-32g" */
    cz_fil_post_type type;
    uint64_t sector_size;      /* bytes */
    cz_fil_api_version api;    /* CZ_FIL_API_1_0 or CZ_FIL_API_1_2 */
    unsigned tree_sub_arity, tree_top_arity; /* tree R: base 8, then these (0 = none) */
    /* PoStConfig (as_v1_config): sectors a request carries at most
     * (winning exactly 1) and challenges per sector proof. */
    unsigned config_sector_count, config_challenge_count;
    /* The circuit's FallbackPoSt PublicParams per partition. */
    unsigned sector_count, challenge_count;
} cz_fil_post_proof;

extern const cz_fil_post_proof cz_fil_post_proofs[CZ_FIL_POST_PROOF_COUNT];

/* NULL when unknown. by_name: the serde name, or the decimal id ("13"). */
const cz_fil_post_proof *cz_fil_post_proof_by_id(unsigned id);
const cz_fil_post_proof *cz_fil_post_proof_by_name(const char *name);
/* The first registered proof of a circuit id ("wpost-32g" -> id 8, V1). The
 * R1CS does not depend on the API version (tested), so this is the proof
 * a blank circuit (setup, recording) of that id is built from. */
const cz_fil_post_proof *cz_fil_post_proof_by_circuit(const char *circuit_id);

/* Nodes of a sector (sector_size / 32) and the length of a tree R path's
 * base part (levels of the base octrees). */
uint64_t cz_fil_post_nodes(const cz_fil_post_proof *p);
size_t cz_fil_post_base_path_len(const cz_fil_post_proof *p);

/* Curio's make_prover_id / Go's toProverID: the unsigned LEB128 of the
 * actor id, zero-padded to 32 bytes (the payload of the ID address). */
void cz_fil_prover_id_from_miner(uint64_t miner_id, uint8_t out[32]);

/* as_safe_commitment: CZ_ERR_NOT_CANONICAL when the 32 bytes are not a
 * canonical Fr; err: "randomness is not a canonical field element ...". */
CZ_WUR cz_status cz_fil_post_safe_commitment(const uint8_t v[32], const char *what, cz_errbuf *err);

/* ==== 2. FallbackPoStSectorProof (bincode) ====================================
 * storage-proofs-post SectorProof: the inclusion proofs into tree R (one per
 * challenge) and the sector's comm_c and comm_r_last. */
typedef struct {
    size_t ninclusion;
    cz_fil_merkle_proof *inclusion_proofs;
    cz_fil_domain comm_c, comm_r_last;
} cz_fil_post_sector_proof;

/* filecoin-proofs FallbackPoStSectorProof: sector id, comm_r and the
 * vanilla proof (fallback::Proof { sectors }: one SectorProof as
 * generate_single_vanilla_proof makes it). */
typedef struct {
    uint64_t sector_id;
    cz_fil_domain comm_r;
    size_t nsectors;
    cz_fil_post_sector_proof *sectors;
} cz_fil_post_vanilla;

/* Frees every array; accepts a zeroed struct; leaves it zeroed. */
void cz_fil_post_vanilla_free(cz_fil_post_vanilla *v);

/* Bincode layout (bincode 1.3 `bincode::serialize` / `deserialize` as
 * filecoin-proofs-api calls them: fixint little-endian, u64 sequence
 * lengths, u32 enum variant indexes, newtypes transparent, [u8; 32] as 32
 * bytes without a length):
 *   sector_id u64 ‖ comm_r 32 ‖ u64 nsectors ‖ per SectorProof:
 *     u64 n ‖ n × MerkleProof ‖ comm_c 32 ‖ comm_r_last 32
 *   MerkleProof = ProofData: u32 variant, then
 *     0 Single: root 32 ‖ leaf 32 ‖ path
 *     1 Sub:    base path ‖ sub path ‖ root 32 ‖ leaf 32
 *     2 Top:    base path ‖ sub path ‖ top path ‖ root 32 ‖ leaf 32
 *   path = InclusionPath: u64 levels ‖ per level (PathElement):
 *     u64 nhashes ‖ nhashes × 32 ‖ index u64
 * The reader is strict where the reference would fail later or build a
 * different circuit: exactly one SectorProof, exactly
 * p->config_challenge_count inclusion proofs, the variant of p's tree shape,
 * the path lengths of p's shape, arity − 1 hashes per level, index < arity,
 * no bytes after the proof (bincode 1's deserialize ignores trailing bytes;
 * a proof made by bincode::serialize has none). Every length is checked
 * against the shape before anything is allocated. Values are not checked
 * here (cz_fil_post_check does). Errors: CZ_ERR_FORMAT, with err naming
 * the field by its serde path and the byte offset in buf, e.g.
 * "vanilla_proof.sectors[0].inclusion_proofs[7].data.Sub.sub_proof.path[0]
 * .hashes[1] at byte 1234: truncated (need 32 bytes, 20 left)" (a Single
 * proof's path is "data.Single.path.path[i]", as serde nests it);
 * CZ_ERR_NOMEM. On error
 * *out is zeroed. */
CZ_WUR cz_status cz_fil_post_vanilla_parse(cz_fil_post_vanilla *out, const cz_fil_post_proof *p,
                                           const uint8_t *buf, size_t len, cz_errbuf *err);
/* bincode::serialize of v (any shape), into a malloc'd buffer. */
CZ_WUR cz_status cz_fil_post_vanilla_encode(const cz_fil_post_vanilla *v, uint8_t **out, size_t *len);
bool cz_fil_post_vanilla_equal(const cz_fil_post_vanilla *a, const cz_fil_post_vanilla *b);

/* ==== 3. the request ==========================================================
 * Everything one proving job needs, as Curio's prove_winning_post /
 * prove_window_post receive it. Winning: exactly one sector proof (the
 * challenged sector, with 66 inclusion proofs), partition 0. Window: 1 ..
 * sector_count sector proofs of partition `partition`, 10 inclusion proofs
 * each. */
typedef struct {
    const cz_fil_post_proof *proof;
    uint8_t prover_id[32];
    uint8_t randomness[32];
    uint32_t partition;
    size_t nvanilla;
    cz_fil_post_vanilla *vanilla;
} cz_fil_post_request;

void cz_fil_post_request_free(cz_fil_post_request *r);

/* Envelope (all little-endian), what the engine carries from the gRPC/HTTP
 * front ends to synthesis:
 *   magic "CZPOSTRQ" (8) ‖ u32 version (= 1) ‖ u32 registered proof id ‖
 *   prover_id 32 ‖ randomness 32 ‖ u32 partition ‖ u32 n ‖
 *   n × (u64 length ‖ that many bytes of bincode FallbackPoStSectorProof)
 * and nothing after. */
#define CZ_FIL_POST_REQUEST_MAGIC "CZPOSTRQ"
#define CZ_FIL_POST_REQUEST_VERSION 1u

/* The envelope from raw bincode sector proofs, as a front end receives
 * them (nothing is parsed: cz_fil_post_request_parse checks everything).
 * Malloc'd into *out. CZ_ERR_INVALID_ARG on NULL arguments (n > 0 with
 * NULL arrays) or n >= 2^32. */
CZ_WUR cz_status cz_fil_post_request_encode_raw(unsigned registered_proof, const uint8_t prover_id[32],
                                                const uint8_t randomness[32], uint32_t partition,
                                                const uint8_t *const *proofs, const size_t *lens, size_t n,
                                                uint8_t **out, size_t *out_len);
/* The envelope of a request (each sector proof bincode-encoded). */
CZ_WUR cz_status cz_fil_post_request_encode(const cz_fil_post_request *r, uint8_t **out, size_t *len);

/* Parse and check the shape of an envelope: magic, version, a known
 * registered proof, prover id and randomness canonical
 * (CZ_ERR_NOT_CANONICAL), partition 0 for winning, the number of sector
 * proofs (winning exactly 1: "invalid amount of vanilla proofs"; window 1
 * .. sector_count: "can only prove a single partition"; both
 * CZ_ERR_INVALID_ARG), each proof as cz_fil_post_vanilla_parse (its
 * message prefixed "sector proof 3: "), no trailing bytes. Envelope errors
 * are CZ_ERR_FORMAT naming the field and byte offset. Values are not
 * checked: call cz_fil_post_check. On error *out is zeroed. */
CZ_WUR cz_status cz_fil_post_request_parse(cz_fil_post_request *out, const uint8_t *buf, size_t len,
                                           cz_errbuf *err);

/* ==== 4. challenges, check, public inputs, circuit ============================ */

/* get_challenge_index (fallback/utils.rs). */
uint64_t cz_fil_post_challenge_index(cz_fil_api_version api, uint64_t sector_index,
                                     uint64_t challenge_count, uint64_t n);
/* generate_leaf_challenge(pub_params, randomness, sector_id, index). */
uint64_t cz_fil_post_leaf_challenge(const cz_fil_post_proof *p, const uint8_t randomness[32],
                                    uint64_t sector_id, uint64_t challenge_index);
/* generate_fallback_sector_challenges for one sector: the
 * p->config_challenge_count leaves of the sector with sector_index
 * (winning: 0; window: partition · sector_count + position in the
 * partition) into out. */
void cz_fil_post_sector_challenges(const cz_fil_post_proof *p, const uint8_t randomness[32],
                                   uint64_t sector_id, uint64_t sector_index, uint64_t *out);
/* generate_winning_post_sector_challenge: out[0 .. config_sector_count)
 * (one entry) = indexes into a sector set of sector_set_len sectors.
 * CZ_ERR_INVALID_ARG for a window proof or sector_set_len 0 ("empty sector
 * set is invalid"); CZ_ERR_NOT_CANONICAL as as_safe_commitment. */
CZ_WUR cz_status cz_fil_post_winning_sectors(const cz_fil_post_proof *p, const uint8_t randomness[32],
                                             const uint8_t prover_id[32], uint64_t sector_set_len,
                                             uint64_t *out, cz_errbuf *err);

/* The circuit's sector i (0 <= i < sector_count) of a request: its public
 * sector (id, comm_r) and its SectorProof, as FallbackPoStCompound::circuit
 * gets them from single_partition_vanilla_proofs. Winning: every i is the
 * one sector, with a SectorProof holding inclusion proof i alone (a view:
 * *one_incl points into the request). Window: sector min(i, n−1) of the
 * request (padding repeats the last), whose SectorProof is the first sector
 * proof with that sector id (single_partition_vanilla_proofs' find). */
typedef struct {
    uint64_t sector_id;
    const cz_fil_domain *comm_r;
    const cz_fil_domain *comm_c, *comm_r_last;
    size_t ninclusion;
    const cz_fil_merkle_proof *inclusion; /* ninclusion proofs */
    uint64_t sector_index;                /* for get_challenge_index */
} cz_fil_post_circuit_sector;
CZ_WUR cz_status cz_fil_post_circuit_sector_of(const cz_fil_post_request *r, size_t i,
                                               cz_fil_post_circuit_sector *out);

/* Native check, as FallbackPoSt::verify on the partition's vanilla proof
 * and stricter where the circuit would be unsatisfied: for every sector
 * proof of the request, comm_r = Poseidon(comm_c, comm_r_last), every
 * inclusion proof's root is comm_r_last (the field and the first proof's
 * root agree), every path hashes from its leaf to that root and opens the
 * derived challenge leaf. Every value must be canonical. CZ_OK, or
 * CZ_ERR_MISMATCH / CZ_ERR_NOT_CANONICAL with err naming the sector and
 * challenge ("sector proof 1 (sector 42): challenge 3 (leaf 17): Merkle
 * path opens node 12, expected 17"); CZ_ERR_INVALID_ARG for a request whose
 * shape parse would refuse. */
CZ_WUR cz_status cz_fil_post_check(const cz_fil_post_request *r, cz_errbuf *err);

/* sector_count · (1 + challenge_count): 132 winning, 2 · 11 = 22 window
 * (small sizes), 25,839 window 32GiB, 25,300 window 64GiB (without ONE). */
size_t cz_fil_post_public_input_count(const cz_fil_post_proof *p);

/* FallbackPoStCompound::generate_public_inputs for the request's partition
 * (the verifier's view: partition k of all sectors): per circuit sector i,
 * comm_r, then each challenge's leaf index (PoRCompound with private
 * params: one Fr = the leaf), the last sector's inputs repeated to
 * sector_count sectors. Montgomery form into out[0 .. cap); *n receives
 * the count. CZ_ERR_INVALID_ARG (cap too small, bad request),
 * CZ_ERR_NOT_CANONICAL (a comm_r or the randomness). */
CZ_WUR cz_status cz_fil_post_public_inputs(const cz_fil_post_request *r, cz_fr *out, size_t cap, size_t *n,
                                           cz_errbuf *err);

/* The circuit context. req NULL: the blank circuit (FallbackPoStCompound::
 * blank_circuit: shape only, for recording and setup). */
typedef struct {
    const cz_fil_post_proof *proof;
    const cz_fil_post_request *req;
} cz_fil_post_circuit;

/* cz_synth_fn for a cz_fil_post_circuit: FallbackPoStCircuit::synthesize
 * (synthesize_default; see docs/filecoin.md for why the extendable path
 * gives the same R1CS). Per circuit sector ("outer namespace/sector_i"):
 * aux comm_r_last, comm_c, comm_r; comm_r inputized; Poseidon hash2(comm_c,
 * comm_r_last) enforced equal to comm_r; then per challenge
 * ("challenge_inclusion_j") PoRCircuit with Root::Val(leaf) (one aux),
 * the base/sub/top paths, the index bits packed into one public input, and
 * computed root = comm_r_last (private: the root is not an input).
 * Errors: CZ_ERR_INVALID_ARG (request of another registered proof, or of
 * the wrong shape), CZ_ERR_NOT_CANONICAL (a value >= r). */
CZ_WUR cz_status cz_fil_post_synth(cz_cs *cs, const void *ctx);

/* ==== 5. native vanilla generation ===========================================
 * A sealed sector as PoSt sees it: tree R rebuilt from the replica, and
 * comm_c / comm_r_last (rust-fil-proofs' p_aux) and comm_r. */
typedef struct {
    const cz_fil_post_proof *proof;
    uint64_t sector_id;
    cz_fil_tree tree_r;
    cz_fil_domain comm_c, comm_r_last, comm_r;
} cz_fil_post_replica;

/* From the replica bytes (sector_size bytes, node i = bytes 32i..32i+31) and
 * p_aux's comm_c and comm_r_last. Rebuilds tree R (pool may be NULL) and
 * refuses (CZ_ERR_MISMATCH) a root other than comm_r_last;
 * CZ_ERR_INVALID_ARG for a wrong length, CZ_ERR_NOT_CANONICAL for a
 * replica node >= r. */
CZ_WUR cz_status cz_fil_post_replica_init(cz_fil_post_replica *out, const cz_fil_post_proof *p, uint64_t sector_id,
                                          const uint8_t *replica, size_t len, const cz_fil_domain *comm_c,
                                          const cz_fil_domain *comm_r_last, cz_pool *pool, cz_errbuf *err);
/* From a directory written by `cuzk seal --cache-dir DIR`: DIR/sealed (the
 * replica) and DIR/p_aux (comm_c ‖ comm_r_last, 64 bytes, rust-fil-proofs'
 * PersistentAux bincode). CZ_ERR_IO naming the file, else as above. */
CZ_WUR cz_status cz_fil_post_replica_load(cz_fil_post_replica *out, const cz_fil_post_proof *p, uint64_t sector_id,
                                          const char *cache_dir, cz_pool *pool, cz_errbuf *err);
void cz_fil_post_replica_free(cz_fil_post_replica *r);

/* generate_single_vanilla_proof: the FallbackPoStSectorProof of the given
 * challenge leaves (each < nodes), one SectorProof of n inclusion proofs. */
CZ_WUR cz_status cz_fil_post_vanilla_generate(cz_fil_post_vanilla *out, const cz_fil_post_replica *r,
                                              const uint64_t *challenges, size_t n, cz_errbuf *err);

/* A whole request: for replicas[i] (i < n; winning n = 1, window 1 ..
 * sector_count), the challenges of sector_index (winning 0, window
 * partition · sector_count + i) and its vanilla proof. prover_id and
 * randomness must be canonical. */
CZ_WUR cz_status cz_fil_post_request_generate(cz_fil_post_request *out, const cz_fil_post_proof *p,
                                              const uint8_t prover_id[32], const uint8_t randomness[32],
                                              uint32_t partition, const cz_fil_post_replica *replicas, size_t n,
                                              cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_POST_H */
