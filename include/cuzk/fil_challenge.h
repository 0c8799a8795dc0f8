/*
 * cuzk — Filecoin PoRep replica id and challenge derivation, value for value
 * as storage-proofs-porep 19 (stacked/vanilla/params.rs generate_replica_id,
 * stacked/vanilla/challenges.rs).
 *
 * Three challenge mechanisms (cz_fil_challenge_mode):
 * - interactive: SHA-256(replica_id ‖ seed ‖ j as u32 LE), where
 *   j = challenges_per_partition · k + i;
 * - non-interactive: SHA-256("filecoin.io|PoRep|1|NonInteractive|1" ‖
 *   replica_id ‖ comm_r ‖ j as u32 LE), same j;
 * - synthetic: a fixed set of min(nodes, 2^18) "synthetic" challenges drawn
 *   from ChaCha20 keyed by BLAKE2b(replica_id ‖ comm_r); the porep
 *   challenges of partition k are members of that set, picked by indexes
 *   drawn from a second ChaCha20 keyed by BLAKE2b(replica_id ‖ seed).
 * Every 256-bit draw h (little-endian) becomes the node
 * (h mod (nodes − 1)) + 1, so node 0 is never challenged; the reduction is
 * exact (no bias shortcuts), as the reference's BigUint arithmetic.
 *
 * Node counts: nodes = sector_size / 32 (2^6 for 2KiB .. 2^31 for 64GiB).
 * The reference asserts nodes < 2^32 and so do these calls
 * (CZ_ERR_INVALID_ARG otherwise, and for nodes < 2).
 *
 * Partition numbers: the reference passes k as u8 and j as u32; a k ≥ 256
 * would wrap there, so these calls refuse it (CZ_ERR_INVALID_ARG) rather
 * than reproduce a wrap no registered proof reaches (126 partitions at most).
 *
 * Outputs are uint64_t node indexes; no call allocates except where noted.
 * Inputs may alias each other; outputs must not alias inputs.
 */
#ifndef CUZK_FIL_CHALLENGE_H
#define CUZK_FIL_CHALLENGE_H

#include "cuzk/filecoin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- replica id ------------------------------------------------------------ */
/* replica_id = SHA-256(prover_id ‖ sector_id as u64 BIG-endian ‖ ticket ‖
 * comm_d ‖ porep_id) with the top two bits of byte 31 cleared (as
 * storage-proofs-porep generate_replica_id; bytes_into_fr_repr_safe).
 * comm_d is hashed exactly as given (32 bytes). porep_id is the registered
 * proof's (cz_fil_porep_id) or any 32 bytes (the regression records use
 * arbitrary ones such as [127; 32]). */
void cz_fil_replica_id(cz_fil_domain *out, const uint8_t prover_id[32], uint64_t sector_id,
                       const uint8_t ticket[32], const cz_fil_domain *comm_d,
                       const uint8_t porep_id[32]);

/* ---- primitives -------------------------------------------------------------- */
/* The 256-bit little-endian number h reduced mod m (m ≥ 1), exactly. */
uint64_t cz_fil_mod256_u64(const uint8_t h[32], uint64_t m);
/* As challenges.rs bigint_to_challenge: (h mod (nodes − 1)) + 1.
 * Precondition 2 <= nodes < 2^32 (the callers below check it). */
uint64_t cz_fil_challenge_from_hash(const uint8_t h[32], uint64_t nodes);

/* Challenges per partition of a registered proof, as filecoin-proofs
 * parameters.rs select_challenges: ceil(total_challenges / partitions). */
unsigned cz_fil_challenges_per_partition(const cz_fil_seal_proof *p);
/* sector_size / 32 */
static inline uint64_t cz_fil_sector_nodes(const cz_fil_seal_proof *p) {
    return p->sector_size / CZ_FIL_NODE_SIZE;
}

/* ---- interactive and non-interactive ------------------------------------- */
/* out[0 .. count): as InteractiveChallenges::derive(nodes, replica_id, seed, k)
 * with challenges_per_partition = count. */
CZ_WUR cz_status cz_fil_interactive_challenges(uint64_t *out, size_t count, uint64_t nodes,
                                               const cz_fil_domain *replica_id,
                                               const uint8_t seed[32], unsigned k);
/* out[0 .. count): as NiChallenges::derive(nodes, replica_id, comm_r, k). */
CZ_WUR cz_status cz_fil_ni_challenges(uint64_t *out, size_t count, uint64_t nodes,
                                      const cz_fil_domain *replica_id,
                                      const cz_fil_domain *comm_r, unsigned k);

/* ---- synthetic ---------------------------------------------------------------- */
#define CZ_FIL_SYNTH_DEFAULT_COUNT (1u << 18)

/* SynthChallengeGenerator: what it needs to produce any synthetic challenge
 * or porep selection (plain data; copy freely, no cleanup). */
typedef struct {
    uint64_t nodes;
    uint64_t num_synth;     /* size of the synthetic set */
    uint8_t replica_id[32];
    uint8_t gen_key[32];    /* ChaCha20 key of the generation stream */
} cz_fil_synth;

/* As SynthChallengeGenerator::new (num_synth > 0) or ::default
 * (num_synth = 0: min(nodes, 2^18)). replica_id and comm_r are converted to
 * Fr by the reference (a panic there on a non-canonical value), so they
 * must be canonical: CZ_ERR_NOT_CANONICAL otherwise. num_synth < 2^32. */
CZ_WUR cz_status cz_fil_synth_init(cz_fil_synth *s, uint64_t nodes, const cz_fil_domain *replica_id,
                                   const cz_fil_domain *comm_r, uint64_t num_synth);
/* The i-th synthetic challenge (i < s->num_synth; gen_synth_challenge). */
uint64_t cz_fil_synth_challenge(const cz_fil_synth *s, uint64_t i);
/* All s->num_synth synthetic challenges, in order, into out (the caller's
 * array of s->num_synth entries; SynthChallenges::derive_synthetic). */
void cz_fil_synth_all(const cz_fil_synth *s, uint64_t *out);
/* out[0 .. count): the synthetic-set indexes of partition k's porep
 * challenges (gen_partition_synth_indexes with num_partition_challenges =
 * count, rand = seed). */
CZ_WUR cz_status cz_fil_synth_indexes(const cz_fil_synth *s, uint64_t *out, size_t count,
                                      const uint8_t seed[32], unsigned k);
/* out[0 .. count): partition k's porep challenges, i.e. the synthetic
 * challenges at those indexes (gen_porep_partition_challenges). */
CZ_WUR cz_status cz_fil_synth_porep_challenges(const cz_fil_synth *s, uint64_t *out, size_t count,
                                               const uint8_t seed[32], unsigned k);

/* ---- by mechanism or registered proof ------------------------------------ */
/* Partition k's porep challenges for an explicit configuration (what a
 * filecoin-proofs PoRepConfig carries, e.g. a regression record's): count
 * challenges of the given mechanism over a sector of `nodes` nodes; the
 * seed/comm_r requirements are those of cz_fil_porep_challenges below. For
 * synthetic the generator is the default one (min(nodes, 2^18)). */
CZ_WUR cz_status cz_fil_challenges_for(uint64_t *out, cz_fil_challenge_mode mode, uint64_t nodes,
                                       size_t count, unsigned k, const cz_fil_domain *replica_id,
                                       const uint8_t *seed, const cz_fil_domain *comm_r,
                                       cz_errbuf *err);

/* Partition k's porep challenges of a registered proof (as
 * stacked::PublicInputs::challenges with the seed set, which the C1 vanilla
 * proofs and the circuit's public inputs both use):
 * cz_fil_challenges_per_partition(p) entries into out.
 * - interactive: needs seed; comm_r unused (may be NULL);
 * - synthetic: needs seed and comm_r;
 * - non-interactive: needs comm_r; seed unused (may be NULL).
 * k < p->partitions. err (nullable) says what is wrong. */
CZ_WUR cz_status cz_fil_porep_challenges(uint64_t *out, const cz_fil_seal_proof *p, unsigned k,
                                         const cz_fil_domain *replica_id, const uint8_t *seed,
                                         const cz_fil_domain *comm_r, cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_CHALLENGE_H */
