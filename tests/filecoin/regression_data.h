/*
 * Test helper: rust-fil-proofs' seal regression records
 * (tests/vectors/filecoin/seal_regression_records-v16.json / -v18.json,
 * copied from filecoin-proofs/tests/) and the seeded generator their inputs
 * came from.
 *
 * How the reference made each record (filecoin-proofs/tests/api.rs,
 * seal_lifecycle -> create_seal -> proof_and_unseal ->
 * persist_generated_proof_for_regression_testing, feature
 * "persist-regression-proofs"; filecoin-proofs/tests/regression.rs only
 * re-verifies them with verify_seal):
 *   rng = XorShiftRng::from_seed(TEST_SEED)   (rand_xorshift 0.3)
 *   prover_id = Fr::random(rng).to_repr()     (blstrs 0.7 Scalar::random)
 *   piece     = UnpaddedBytesAmount(sector_size) bytes of rand::random::<u8>()
 *               -- THREAD_RNG, not the seeded rng: the piece data is NOT
 *               reproducible, which is why records with identical inputs
 *               have different comm_d;
 *   ticket    = rng.gen::<[u8; 32]>()
 *   seed      = rng.gen::<[u8; 32]>()
 *   sector_id = rng.gen::<u64>()
 * then one piece of sector_size·127/128 unpadded bytes filling the whole
 * sector (add_piece with no earlier pieces), seal_pre_commit_phase1/2 with
 * that prover_id/sector_id/ticket, seal_commit_phase1/2 with that seed.
 * Because every test starts a fresh rng from TEST_SEED, every record has the
 * same prover_id, ticket, seed and sector_id (9259733836259213201);
 * cz_fil_regression_inputs regenerates them and the test checks them against
 * every record.
 *
 * So a record cannot be re-sealed to compare comm_d/comm_r; what it does
 * allow is verifying its Groth16 proof (192 bytes per partition, or an
 * aggregate for the NI records) against the public inputs derived from
 * replica_id (cz_fil_replica_id with the record's porep_id), comm_d, comm_r
 * and the challenges — with the real Filecoin verifying keys, which these
 * vectors do not include.
 *
 * rand 0.8 semantics reproduced here: gen::<u8>() = next_u32() as u8, so a
 * [u8; 32] costs 32 next_u32 calls (element by element); gen::<u64>() =
 * next_u64() = lo | hi << 32 of two next_u32; fill_bytes as rand_core
 * fill_bytes_via_next (8-byte next_u64 chunks, tail of 5..7 bytes from a
 * next_u64, of 1..4 from a next_u32).
 */
#ifndef CZ_TEST_REGRESSION_DATA_H
#define CZ_TEST_REGRESSION_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "cuzk/filecoin.h"

/* filecoin-proofs/tests/api.rs TEST_SEED. */
extern const uint8_t CZ_FIL_API_TEST_SEED[16];

/* rand_xorshift 0.3 XorShiftRng. */
typedef struct { uint32_t x, y, z, w; } cz_xorshift;

/* from_seed: four u32 LE; an all-zero seed becomes 0x0BAD5EED ×4. */
void cz_xorshift_from_seed(cz_xorshift *r, const uint8_t seed[16]);
uint32_t cz_xorshift_next_u32(cz_xorshift *r);
uint64_t cz_xorshift_next_u64(cz_xorshift *r);
void cz_xorshift_fill_bytes(cz_xorshift *r, uint8_t *out, size_t len);
/* rand 0.8 Rng::gen::<[u8; N]>() (N ≤ 32 in rand 0.8 without const
 * generics; any n here): one next_u32 per byte, its low byte. */
void cz_xorshift_gen_bytes(cz_xorshift *r, uint8_t *out, size_t n);
/* blstrs 0.7 Scalar::random then to_repr(): four next_u64 as LE limbs, top
 * bit cleared, retried until < r; out is the 32-byte LE canonical value. */
void cz_xorshift_fr_random_repr(cz_xorshift *r, uint8_t out[32]);

/* The inputs every record shares, regenerated as seal_lifecycle does. */
typedef struct {
    uint8_t prover_id[32];
    uint8_t ticket[32];
    uint8_t seed[32];
    uint64_t sector_id;
} cz_fil_regression_inputs;
void cz_fil_regression_gen_inputs(cz_fil_regression_inputs *out);

/* One record (serde SealRegressionRecord). */
typedef struct {
    uint64_t sector_size;
    unsigned partitions;
    uint8_t porep_id[32];
    cz_fil_api_version api;
    cz_fil_challenge_mode mode; /* from api_features: [] / SyntheticPoRep / NonInteractivePoRep */
    cz_fil_domain comm_r, comm_d;
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32], seed[32];
    size_t proof_len;
    uint8_t *proof; /* malloc'd */
} cz_fil_regression_record;

/* Read a records file (one JSON object per line). Returns false (and
 * prints why to stderr) on any malformed line. *recs is malloc'd; free
 * with cz_fil_regression_free. sector_id (> 2^63 here) is read exactly,
 * although jansson's integers are signed 64-bit. */
bool cz_fil_regression_load(const char *path, cz_fil_regression_record **recs, size_t *n);
void cz_fil_regression_free(cz_fil_regression_record *recs, size_t n);

/* Challenges per partition of a record's config, as filecoin-proofs
 * setup_params: ceil(minimum_challenges / partitions), the minimum being
 * 2 (≤ 1GiB) or 176 (32/64GiB) interactive and synthetic, 26 or 2253
 * non-interactive. 0 for an unknown size. */
unsigned cz_fil_regression_challenges_per_partition(const cz_fil_regression_record *r);

#endif
