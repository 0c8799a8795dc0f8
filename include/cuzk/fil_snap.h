/*
 * cuzk — Filecoin SnapDeals (EmptySectorUpdate), byte-exact with
 * rust-fil-proofs 19.1 storage-proofs-update (the SHA-256 tree D /
 * Poseidon tree R variant EmptySectorUpdateCompound, which the production
 * v28 "empty-sector-update-merkletree-poseidon_hasher-8-8-0" parameters
 * fit; NOT the single-partition `poseidon/` variant
 * EmptySectorUpdateCompound of storage-proofs-update/src/poseidon, whose
 * files are "empty-sector-update-poseidon-…" and which cuzk does not build).
 *
 * What a SnapDeals proof says, per partition k (vanilla.rs, circuit.rs):
 *   comm_r_old = Poseidon2(comm_c, root_r_old)   (tree R of the sealed sector)
 *   comm_r_new = Poseidon2(comm_c, root_r_new)   (tree R of the new replica)
 *   comm_d_new = root of tree D over the new (fr32-padded) data
 *   phi        = Poseidon_gen(comm_d_new, comm_r_old)
 *   rho(high)  = Poseidon_gen(phi, high)          high = the h top bits of a node index
 *   new[c]     = old[c] + data[c]·rho(c >> (log2(nodes) − h))
 * for the challenges c of challenges.rs (all inside partition k's slice of
 * the sector), each with three Merkle proofs (tree R old, tree D new, tree
 * R new). Poseidon_gen is neptune's arity-2 Poseidon with the custom domain
 * tag HashType::Custom(Arbitrary(1)) (constants.rs
 * POSEIDON_CONSTANTS_GEN_RANDOMNESS). Tree D's top `partition_bit_len`
 * levels are proved once per partition from its "apex leaves" (the
 * partition's slice of the tree D row with partitions·apex_leaf_count
 * nodes).
 *
 * Layers of this header:
 *   1. the registered update proofs (constants.rs, filecoin-proofs-api
 *      RegisteredUpdateProof) and the small-sector shapes the reference's
 *      tests use;
 *   2. challenges, phi, rho (challenges.rs, vanilla.rs);
 *   3. the vanilla PartitionProof in memory and as bincode, and cuzk's
 *      request envelope (the engine's job payload: one circuit per
 *      partition);
 *   4. the circuit (circuit.rs EmptySectorUpdateCircuit::synthesize) with
 *      its gadgets (gadgets.rs) and its public inputs (compound.rs);
 *   5. the native check (EmptySectorUpdate::verify, stricter);
 *   6. encoding and vanilla proving in memory (encode_into, prove_inner),
 *      for tests and the CLI.
 *
 * Domain elements are cz_fil_domain (32-byte canonical little-endian Fr,
 * cuzk/filecoin.h). Every value that reaches a field operation must be
 * canonical; the reference converts with Fr::from_repr_vartime(..).expect
 * (a panic), cuzk refuses with CZ_ERR_NOT_CANONICAL.
 */
#ifndef CUZK_FIL_SNAP_H
#define CUZK_FIL_SNAP_H

#include "cuzk/circuit.h"
#include "cuzk/fil_bp.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_tree.h"
#include "cuzk/filecoin.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== 1. registered update proofs =========================================== */

#define CZ_FIL_SNAP_HS 6u            /* constants.rs hs(): six allowed h values */
#define CZ_FIL_SNAP_H_DEFAULT_INDEX 3u /* h_default = hs[3] */
#define CZ_FIL_SNAP_MAX_PARTITIONS 16u
#define CZ_FIL_SNAP_MAX_CHALLENGES 86u
#define CZ_FIL_SNAP_MAX_APEX 128u
#define CZ_FIL_SNAP_NOT_REGISTERED (-1)

/* One sector size of EmptySectorUpdate (constants.rs, vanilla.rs
 * PublicParams::from_sector_size). */
typedef struct {
    int id;                  /* RegisteredUpdateProof number 0..4 (Go / FFI), or
                              * CZ_FIL_SNAP_NOT_REGISTERED for the reference's
                              * test-only sector sizes */
    const char *name;        /* "StackedDrg32GiBV1" (filecoin-proofs-api serde name) */
    const char *circuit_id;  /* Curio's circuit id "snap-32g" (NULL: test-only) */
    const char *param_file;  /* v28 parameter file stem (NULL: test-only) */
    uint64_t sector_size;    /* bytes */
    uint64_t sector_nodes;   /* sector_size / 32 */
    unsigned challenge_bit_len;   /* log2(sector_nodes) = tree D height */
    unsigned partitions;          /* partition_count */
    unsigned partition_bit_len;   /* log2(partitions) */
    unsigned challenges;          /* challenge_count, per partition */
    unsigned apex_leaves;         /* apex_leaf_count, per partition */
    unsigned apex_leaf_bit_len;   /* log2(apex_leaves) */
    unsigned hs[CZ_FIL_SNAP_HS];  /* hs(sector_nodes) */
    unsigned h_default;           /* hs[3]: 1 for <= 32KiB, 10 for production sizes */
    /* tree R shape (validate_tree_r_shape): base arity 8, then sub and top
     * arity (0 = none); tree D is binary SHA-256 */
    unsigned tree_sub_arity, tree_top_arity;
    unsigned tree_r_base_len;     /* levels of the base-tree part of a tree R path */
} cz_fil_snap_proof;

/* The five registered proofs, id order (0 = 2KiB, 1 = 8MiB, 2 = 512MiB,
 * 3 = 32GiB, 4 = 64GiB). */
extern const cz_fil_snap_proof cz_fil_snap_proofs[];
extern const size_t cz_fil_snap_proofs_count;

/* Lookups; NULL when unknown. by_name accepts the serde name
 * ("StackedDrg2KiBV1"), the circuit id ("snap-2k") or the decimal id. */
const cz_fil_snap_proof *cz_fil_snap_proof_by_id(unsigned id);
const cz_fil_snap_proof *cz_fil_snap_proof_by_name(const char *name);
/* Every size in constants.rs ALLOWED_SECTOR_SIZES (1KiB … 64GiB), the
 * test-only ones (1, 4, 8, 16, 32KiB, 16MiB) with the tree R shape
 * validate_tree_r_shape requires, so that the reference's own circuit
 * counts can be checked; registered sizes return the table entry. */
const cz_fil_snap_proof *cz_fil_snap_shape_by_size(uint64_t sector_size);

/* h_select(sector_nodes, h) = 2^(index of h in hs); CZ_ERR_INVALID_ARG if h
 * is not one of hs (the reference panics). For sizes <= 32KiB every hs is
 * 1, so index 0 is taken (position() finds the first). */
CZ_WUR cz_status cz_fil_snap_h_select(const cz_fil_snap_proof *p, unsigned h, uint64_t *out);
/* circuit::PublicInputs::new's k_and_h_select = k | h_select << partition_bit_len. */
CZ_WUR cz_status cz_fil_snap_k_and_h_select(const cz_fil_snap_proof *p, unsigned k, unsigned h,
                                            uint64_t *out);

/* ==== 2. challenges, phi, rho ================================================ */

/* challenges.rs Challenges::new(sector_nodes, comm_r_new, k): the
 * p->challenges challenges of partition k (each < sector_nodes, top
 * partition_bit_len bits = k). digest j (global index k·digests_per_partition
 * + j) = Poseidon_gen(comm_r_new, j); each digest's little-endian bits are
 * cut into 254 / bits_per_challenge chunks. out has p->challenges entries.
 * CZ_ERR_INVALID_ARG for k >= partitions, CZ_ERR_NOT_CANONICAL for a
 * non-canonical comm_r_new. */
CZ_WUR cz_status cz_fil_snap_challenges(const cz_fil_snap_proof *p, const cz_fil_domain *comm_r_new,
                                        unsigned k, uint32_t *out);
/* vanilla.rs phi(comm_d_new, comm_r_old) = Poseidon_gen(comm_d_new, comm_r_old). */
CZ_WUR cz_status cz_fil_snap_phi(cz_fil_domain *out, const cz_fil_domain *comm_d_new,
                                 const cz_fil_domain *comm_r_old);
/* vanilla.rs rho(phi, high) = Poseidon_gen(phi, Fr(high)); out Montgomery. */
CZ_WUR cz_status cz_fil_snap_rho(cz_fr *out, const cz_fil_domain *phi, uint32_t high);

/* ==== 3. vanilla proofs, bincode, request envelope ============================ */

/* vanilla.rs ChallengeProof<TreeR>: tree R proofs are Single (8-0-0), Sub
 * (8-8-0) or Top (8-8-2) as the tree shape; tree D's is Single, binary. */
typedef struct {
    cz_fil_merkle_proof proof_r_old;
    cz_fil_merkle_proof proof_d_new;
    cz_fil_merkle_proof proof_r_new;
} cz_fil_snap_challenge_proof;

/* vanilla.rs PartitionProof<TreeR>. Owned arrays (cz_fil_snap_partition_free). */
typedef struct {
    cz_fil_domain comm_c;
    size_t napex;
    cz_fil_domain *apex_leafs;       /* p->apex_leaves */
    size_t nchallenges;
    cz_fil_snap_challenge_proof *challenges; /* p->challenges, in challenge order */
} cz_fil_snap_partition_proof;

void cz_fil_snap_partition_free(cz_fil_snap_partition_proof *pp);

/* PartitionProof as filecoin-proofs-api writes it (update.rs
 * generate_partition_proofs: bincode::serialize, bincode 1.x legacy
 * defaults = little-endian, fixed-width integers, u64 sequence lengths,
 * enum variant as u32, structs as their fields in order, [u8; 32] as 32
 * raw bytes):
 *   comm_c[32] | u64 n | apex_leafs n×[32] | u64 m | m × ChallengeProof
 *   ChallengeProof = MerkleProof(r_old) MerkleProof(d_new) MerkleProof(r_new)
 *   MerkleProof    = u32 variant (0 Single, 1 Sub, 2 Top), then
 *     Single: root[32] leaf[32] path
 *     Sub:    base_proof sub_proof root[32] leaf[32]
 *     Top:    base_proof sub_proof top_proof root[32] leaf[32]
 *   path (InclusionPath) = u64 levels, each PathElement = u64 nh, nh×[32], u64 index
 * The reader checks the shape against p (apex and challenge counts, the
 * variant, every path length and sibling count, index < arity) BEFORE
 * allocating, so allocation is bounded by the proof's shape whatever the
 * lengths say, and every domain is canonical. Errors: CZ_ERR_FORMAT
 * (truncated, wrong shape, trailing bytes — the reference's
 * bincode::deserialize would ignore trailing bytes, which its own
 * serializer never writes), CZ_ERR_NOT_CANONICAL, CZ_ERR_NOMEM; err names
 * the field and byte offset ("challenge_proofs[3].proof_r_new.data.Sub.
 * base_proof.path[2].hashes[5] at byte 1234: truncated (need 32 bytes, 7
 * left)"; the format PoSt's reader uses too). On error *out is zeroed. */
CZ_WUR cz_status cz_fil_snap_partition_from_bincode(cz_fil_snap_partition_proof *out,
                                                    const cz_fil_snap_proof *p,
                                                    const uint8_t *buf, size_t len,
                                                    cz_errbuf *err);
/* The same layout written; *out malloc'd. CZ_ERR_INVALID_ARG if pp does
 * not have p's shape. */
CZ_WUR cz_status cz_fil_snap_partition_to_bincode(const cz_fil_snap_partition_proof *pp,
                                                  const cz_fil_snap_proof *p, uint8_t **out,
                                                  size_t *len);

/* A SnapDeals job: what Curio's prove_snap_deals receives (registered
 * proof number, comm_r_old, comm_r_new, comm_d_new, one bincode
 * PartitionProof per partition), parsed. Owned (cz_fil_snap_request_free). */
typedef struct {
    const cz_fil_snap_proof *proof;
    cz_fil_domain comm_r_old, comm_r_new, comm_d_new;
    size_t npartitions;                       /* = proof->partitions */
    cz_fil_snap_partition_proof *partitions;
} cz_fil_snap_request;

void cz_fil_snap_request_free(cz_fil_snap_request *r);

/* From Curio's pieces: registered proof id, the three commitments (32
 * bytes each, canonical) and n bincode partition proofs (n must equal the
 * proof's partition count). Errors as the bincode reader, plus
 * CZ_ERR_INVALID_ARG (unknown id); err says which partition. */
CZ_WUR cz_status cz_fil_snap_request_from_parts(cz_fil_snap_request *out, unsigned registered_proof,
                                                const uint8_t comm_r_old[32],
                                                const uint8_t comm_r_new[32],
                                                const uint8_t comm_d_new[32],
                                                const uint8_t *const *proofs, const size_t *lens,
                                                size_t n, cz_errbuf *err);

/* The envelope (binary, little-endian), the engine's job payload:
 *   magic "CZSNAPRQ" (8) | u32 version (= 1) | u32 registered update proof
 *   comm_r_old[32] | comm_r_new[32] | comm_d_new[32]
 *   u32 npartitions | npartitions × (u64 len | len bytes of bincode PartitionProof)
 * and nothing after. parse: every length is checked against the bytes
 * left before use; errors name the field and offset (CZ_ERR_FORMAT: magic,
 * version, truncation, partition count, trailing bytes; then as the
 * bincode reader, prefixed "partition k: "). */
#define CZ_FIL_SNAP_REQUEST_MAGIC "CZSNAPRQ"
#define CZ_FIL_SNAP_REQUEST_VERSION 1u
CZ_WUR cz_status cz_fil_snap_request_encode(const cz_fil_snap_request *r, uint8_t **out, size_t *len);
CZ_WUR cz_status cz_fil_snap_request_parse(cz_fil_snap_request *out, const uint8_t *buf, size_t len,
                                           cz_errbuf *err);

/* ==== 4. the circuit ========================================================== */

/* ctx of cz_fil_snap_synth. request NULL: the blank circuit
 * (EmptySectorUpdateCircuit::blank, shape only, for recording and setup);
 * otherwise the witness of partition `partition` with h = `h` (0: the
 * proof's h_default, what filecoin-proofs always uses). */
typedef struct {
    const cz_fil_snap_proof *proof;
    const cz_fil_snap_request *request;
    unsigned partition;
    unsigned h;
} cz_fil_snap_circuit;

/* cz_synth_fn: EmptySectorUpdateCircuit::synthesize, same variables and
 * constraints in the same order (see docs/filecoin.md "SnapDeals"):
 * 4 public inputs (k_and_h_select, comm_r_old, comm_d_new, comm_r_new).
 * Errors: CZ_ERR_INVALID_ARG (request of another proof, partition or h
 * out of range, values mode without a request), CZ_ERR_FORMAT (a partition
 * proof not of the proof's shape), CZ_ERR_NOT_CANONICAL, CZ_ERR_MISMATCH
 * where the reference asserts (panics): the challenges' partition paths
 * differ (every mode), or a computed leaf_r_new differs from the proof's
 * (witness and recording modes; the checker instead reports the tree R
 * new root as unsatisfied). Other wrong values show as unsatisfied
 * constraints (cz_cs_check names them, e.g. "por tree_r_old (c_index=5)/
 * calculated root == provided root"). The shape never depends on values.
 * Run cz_fil_snap_check before proving: a request it accepts satisfies
 * every partition circuit. */
CZ_WUR cz_status cz_fil_snap_synth(cz_cs *cs, const void *ctx);

/* compound.rs generate_public_inputs = circuit::PublicInputs::to_vec:
 * [k_and_h_select, comm_r_old, comm_d_new, comm_r_new] (Montgomery), for
 * partition k with h = h_default (…_h: an explicit h). cap >= 4 else
 * CZ_ERR_INVALID_ARG; *n = 4. */
CZ_WUR cz_status cz_fil_snap_public_inputs(const cz_fil_snap_request *r, unsigned k, cz_fr *out,
                                           size_t cap, size_t *n, cz_errbuf *err);
CZ_WUR cz_status cz_fil_snap_public_inputs_h(const cz_fil_snap_request *r, unsigned k, unsigned h,
                                             cz_fr *out, size_t cap, size_t *n, cz_errbuf *err);

/* ---- gadgets.rs, bellperson-exact (for tests and reuse) ----------------------- */
/* allocated_num_to_allocated_bits: 255 AllocatedBits of the num
 * (field_into_allocated_bits_le), then "binary decomp":
 * (Σ 2^i·bit_i)·ONE = num. 256 constraints. */
void cz_bp_snap_num_to_allocated_bits(cz_cs *cs, cz_bp_abit out[255], const cz_bp_num *num);
/* gen_challenge_bits: per digest j: aux digest_index = k·dpp + j with
 * (dpp·k + j·ONE)·ONE = digest_index, Poseidon_gen(comm_r_new,
 * digest_index), its 255 bits; the first `bits_per_challenge` × (as many
 * as still needed) chunks become challenges. out: challenges ×
 * bits_per_challenge bits, challenge-major. 568 constraints for 10
 * challenges of 6 bits (reference test). */
void cz_bp_snap_gen_challenge_bits(cz_cs *cs, cz_bp_abit *out, const cz_bp_num *comm_r_new,
                                   const cz_bp_num *partition, unsigned challenges,
                                   unsigned bits_per_challenge);
/* get_challenge_high_bits: for each of the 6 hs (k-th): pack_bits of the
 * h top bits of c_bits, aux c_high_or_zero with c_high·h_select_bit_k =
 * c_high_or_zero; then aux c_high_selected with (Σ c_high_or_zero)·ONE =
 * c_high_selected. 13 constraints, 13 aux. */
void cz_bp_snap_get_challenge_high_bits(cz_cs *cs, cz_bp_num *out, const cz_bp_abit *c_bits,
                                        unsigned nbits, const cz_bp_abit h_select_bits[6],
                                        const unsigned hs[6]);
/* label_r_new: aux d·rho (AllocatedNum::mul), aux label_r_new with
 * (label_r_old + d·rho)·ONE = label_r_new. 2 constraints. */
void cz_bp_snap_label_r_new(cz_cs *cs, cz_bp_num *out, const cz_bp_num *label_r_old,
                            const cz_bp_num *label_d_new, const cz_bp_num *rho);
/* storage-proofs-core por_no_challenge_input for a tree of the given
 * shape: hasher SHA-256 (arity 2, sub = top = 0) or Poseidon (arity 8,
 * sub, top); path: nlevels × (arity−1) siblings (base levels, then sub,
 * then top) as allocated nums; challenge_bits little-endian, exactly as
 * many as the insert indices consume (else cz_cs_fail INVALID_ARG, as the
 * reference asserts). Then "calculated root == provided root":
 * computed·ONE = root. */
void cz_bp_snap_por_no_challenge_input(cz_cs *cs, bool sha256, unsigned arity, unsigned sub_arity,
                                       unsigned top_arity, const cz_bp_abit *challenge_bits,
                                       size_t nbits, const cz_bp_num *leaf, const cz_bp_num *path,
                                       size_t nlevels, const cz_bp_num *root);
/* apex_por: the apex tree over napex leaves (SHA-256 hash2_circuit row by
 * row), then por_no_challenge_input<TreeD>(partition_bits, apex root,
 * partition_path, comm_d). 317,654 constraints for 8 leaves and no
 * partition bits (reference test). */
void cz_bp_snap_apex_por(cz_cs *cs, const cz_bp_num *apex_leafs, size_t napex,
                         const cz_bp_abit *partition_bits, const cz_bp_num *partition_path,
                         unsigned partition_bit_len, const cz_bp_num *comm_d);

/* ==== 5. native check ========================================================== */

/* EmptySectorUpdate::verify_all_partitions with h = h_default, and
 * stricter: every partition k (as in the request) has p's shape; for each
 * challenge c_i of Challenges::new(comm_r_new, k): the three proofs open
 * node c_i, tree R old/new proofs lead to the first challenge's roots and
 * tree D's to comm_d_new, comm_r_old = Poseidon2(comm_c, root_r_old) and
 * comm_r_new likewise, leaf_r_new = leaf_r_old + leaf_d_new·rho(c_i >>
 * (bits − h)), the apex path of the tree D proof lies in the apex tree of
 * the partition's apex leaves (the reference checks membership in each
 * row; cuzk checks the exact sibling), and every challenge has the same
 * partition path (the circuit asserts that) ending at comm_d_new.
 * CZ_ERR_MISMATCH (values) / CZ_ERR_FORMAT (shape); err names the
 * partition and challenge ("partition 2, challenge 7 (node 12345):
 * proof_r_new: Merkle path does not lead to its root"). */
CZ_WUR cz_status cz_fil_snap_check(const cz_fil_snap_request *r, cz_errbuf *err);
CZ_WUR cz_status cz_fil_snap_check_h(const cz_fil_snap_request *r, unsigned h, cz_errbuf *err);

/* ==== 6. encoding and vanilla proving, in memory =============================== */

/* An update in memory: vanilla.rs encode_into's outputs and the three
 * trees prove_inner reads. Sizes: about 4× the sector for the trees plus
 * the new replica (2KiB, 8MiB, 512MiB are practical; 32/64GiB are not). */
typedef struct {
    const cz_fil_snap_proof *proof;
    unsigned h;
    cz_fil_domain comm_c, comm_r_last_old, comm_r_old;
    cz_fil_domain comm_d_new, comm_r_last_new, comm_r_new, phi;
    uint8_t *new_replica;   /* sector_size bytes (owned) */
    cz_fil_tree tree_d_new, tree_r_old, tree_r_new;
} cz_fil_snap_update;

/* encode_into (vanilla.rs + filecoin-proofs update.rs): old_replica is the
 * sealed sector ("sector key", sector_size bytes: cz_fil_seal_params
 * .sealed_out or cuzk seal's cache-dir/sealed), comm_c the sealed sector's;
 * data the unpadded new data (len <= unpadded size, zero-filled like a
 * sector padded with zero pieces), fr32-padded into tree D's leaves.
 * Builds tree R old from the old replica (comm_r_last_old, comm_r_old =
 * Poseidon2(comm_c, ·)), tree D new (comm_d_new), phi, the new replica
 * node by node (old + data·rho), tree R new, comm_r_new. h 0: h_default.
 * pool may be NULL. Errors: CZ_ERR_INVALID_ARG (data too long, h not in
 * hs), CZ_ERR_NOT_CANONICAL (an old replica node >= r), CZ_ERR_NOMEM.
 * The reference also refuses all-zero commitments; so does this
 * (CZ_ERR_MISMATCH). */
CZ_WUR cz_status cz_fil_snap_encode(cz_fil_snap_update *out, const cz_fil_snap_proof *p,
                                    const uint8_t *old_replica, const cz_fil_domain *comm_c,
                                    const uint8_t *data, size_t len, unsigned h, cz_pool *pool,
                                    cz_errbuf *err);
void cz_fil_snap_update_free(cz_fil_snap_update *u);

/* EmptySectorUpdate::prove_inner for partition k: the partition's apex
 * leaves from tree D, the challenges, and per challenge the three
 * inclusion proofs. *out owned by the caller. */
CZ_WUR cz_status cz_fil_snap_prove_partition(const cz_fil_snap_update *u, unsigned k,
                                             cz_fil_snap_partition_proof *out, cz_errbuf *err);
/* prove_all_partitions: a whole request (comms from u). */
CZ_WUR cz_status cz_fil_snap_prove(const cz_fil_snap_update *u, cz_fil_snap_request *out,
                                   cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_SNAP_H */
