/*
 * cuzk — Filecoin's exact algorithms: common types and the registered seal
 * proofs.
 *
 * Everything under cuzk/fil_*.h and src/filecoin/ reproduces
 * rust-fil-proofs (filecoin-proofs 19.1, storage-proofs-* with
 * filecoin-hashers), neptune 11 and bellperson 0.27 value for value. It is a
 * family apart from cuzk's own PoRep-shaped presets (cuzk/circuits.h,
 * cuzk/poseidon.h), whose hashes and circuits are cheaper and NOT
 * Filecoin-compatible: nothing in this family calls those, and their names
 * never start with cz_fil_ / cz_neptune_.
 *
 * Conventions (Filecoin's):
 * - A "domain" element (comm_d, comm_r, replica_id, labels, tree nodes) is
 *   32 bytes, the little-endian canonical representation of an Fr element.
 *   SHA-256 outputs become domain elements by clearing the top two bits of
 *   byte 31 ("254-bit truncation").
 * - Node i of a sector is bytes [32·i, 32·i + 32) of the (fr32-padded)
 *   sector; sectors have 2^k nodes.
 */
#ifndef CUZK_FILECOIN_H
#define CUZK_FILECOIN_H

#include "cuzk/common.h"
#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_FIL_NODE_SIZE 32u

/* A 32-byte domain element (little-endian Fr representation). */
typedef struct { uint8_t b[32]; } cz_fil_domain;

/* Domain <-> Fr (Montgomery form). from_domain refuses a non-canonical
 * value (>= r) with CZ_ERR_NOT_CANONICAL. */
CZ_WUR cz_status cz_fil_domain_to_fr(cz_fr *out, const cz_fil_domain *d);
void cz_fil_domain_from_fr(cz_fil_domain *out, const cz_fr *a);
/* Clear the top two bits of byte 31 (SHA-256 digest -> domain element). */
static inline void cz_fil_trim_254(uint8_t d[32]) { d[31] &= 0x3f; }

/* storage-proofs-core ApiVersion. */
typedef enum {
    CZ_FIL_API_1_0 = 0, /* "1.0.0" */
    CZ_FIL_API_1_1 = 1, /* "1.1.0" */
    CZ_FIL_API_1_2 = 2  /* "1.2.0" */
} cz_fil_api_version;

/* How a proof's challenges are chosen (filecoin-proofs
 * ChallengeMechanism / storage-proofs-porep Challenges). */
typedef enum {
    CZ_FIL_CHALLENGES_INTERACTIVE = 0,     /* from the seed (v1.0, v1.1) */
    CZ_FIL_CHALLENGES_SYNTHETIC = 1,       /* ..._Feat_SyntheticPoRep */
    CZ_FIL_CHALLENGES_NON_INTERACTIVE = 2  /* ..._Feat_NonInteractivePoRep */
} cz_fil_challenge_mode;

/* One registered seal proof (filecoin-proofs-api RegisteredSealProof).
 * Numbers are Filecoin's (constants.rs, registry.rs); the table is
 * cz_fil_seal_proofs[]. */
typedef struct {
    unsigned id;               /* RegisteredSealProof number, 0..19 */
    const char *name;          /* "StackedDrg2KiBV1_1" (serde name) */
    const char *vanilla_name;  /* key of the C1 vanilla_proofs map: "StackedDrg2KiBV1" */
    const char *circuit_id;    /* cuzk circuit id: "porep-2k" */
    uint64_t sector_size;      /* bytes */
    cz_fil_api_version api;
    cz_fil_challenge_mode challenges;
    unsigned layers;           /* SDR layers */
    unsigned partitions;       /* Groth16 partitions of the C2 proof */
    unsigned challenges_per_partition;
    unsigned total_challenges; /* minimum challenges of the sector size */
    /* Tree R shape: base arity 8, then sub and top arity (0 = none). */
    unsigned tree_sub_arity, tree_top_arity;
} cz_fil_seal_proof;

extern const cz_fil_seal_proof cz_fil_seal_proofs[];
extern const size_t cz_fil_seal_proofs_count;

/* Lookups; NULL when unknown. by_name accepts the serde name. */
const cz_fil_seal_proof *cz_fil_seal_proof_by_id(unsigned id);
const cz_fil_seal_proof *cz_fil_seal_proof_by_name(const char *name);
/* sector size and api version -> the interactive registered proof (ids 0..9),
 * or the synthetic/non-interactive one for api 1.2 with mode given. */
const cz_fil_seal_proof *cz_fil_seal_proof_find(uint64_t sector_size, cz_fil_api_version api,
                                                cz_fil_challenge_mode mode);
/* porep_id: id as u64 LE ‖ nonce u64 LE (0) ‖ 16 zero bytes. */
void cz_fil_porep_id(uint8_t out[32], const cz_fil_seal_proof *p);
const char *cz_fil_api_version_str(cz_fil_api_version v);   /* "1.1.0" */
/* Sector size "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" or a byte count. */
CZ_WUR cz_status cz_fil_parse_sector_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FILECOIN_H */
