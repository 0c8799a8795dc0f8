/*
 * cuzkd's gRPC request mapping (service cuzk.v1.ProvingEngine, the API
 * Curio's proving client speaks; proto/cuzk/v1/proving.proto): pure
 * functions from decoded requests to engine requests, with no network and
 * no engine, so fuzz/fuzz_grpc.c can drive them with arbitrary bytes.
 *
 * Every refusal returns a gRPC status code (grpc_status_code numbers, see
 * CZ_GRPC_*) and writes a one-line message naming the problem into err.
 * docs/grpc.md has the tables these functions implement.
 */
#ifndef CZ_DAEMON_GRPC_API_H
#define CZ_DAEMON_GRPC_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuzk/engine.h"
#include "cuzk/v1/proving.pb-c.h"

/* The gRPC status codes cuzkd answers with (values of grpc_status_code). */
enum {
    CZ_GRPC_OK = 0,
    CZ_GRPC_CANCELLED = 1,
    CZ_GRPC_UNKNOWN = 2,
    CZ_GRPC_INVALID_ARGUMENT = 3,
    CZ_GRPC_DEADLINE_EXCEEDED = 4,
    CZ_GRPC_NOT_FOUND = 5,
    CZ_GRPC_ALREADY_EXISTS = 6,
    CZ_GRPC_PERMISSION_DENIED = 7,
    CZ_GRPC_RESOURCE_EXHAUSTED = 8,
    CZ_GRPC_FAILED_PRECONDITION = 9,
    CZ_GRPC_ABORTED = 10,
    CZ_GRPC_UNIMPLEMENTED = 12,
    CZ_GRPC_INTERNAL = 13,
    CZ_GRPC_UNAVAILABLE = 14,
    CZ_GRPC_UNAUTHENTICATED = 16
};

/* The gRPC status for an engine refusal (submit, preload, evict). */
int cz_grpc_status_of(cz_status st);

/* Maps Curio's circuit ids (PreloadSRS/EvictSRS: "porep-32g", "wpost-32g",
 * "winning-32g", "snap-32g", ... with sizes 2k, 8m, 512m, 32g, 64g) to
 * cuzk's (the same names). Returns 0 with out filled (cuzk's id,
 * NUL-terminated), or INVALID_ARGUMENT for a Filecoin kind with an unknown
 * size or an id that is not a valid name. Ids outside Curio's naming
 * (cuzk's own circuits such as mulchain-N) pass through unchanged. */
int cz_grpc_circuit_id(const char *curio_id, char *out, size_t outlen, char *err, size_t errlen);

/* Curio's queue label of a cuzk circuit id ("porep-c2", "snap-update",
 * "window-post", "winning-post"; others: the circuit id itself). */
const char *cz_grpc_kind_label(const char *circuit_id);

/* A SubmitProofRequest mapped onto the engine. */
typedef struct {
    char circuit[128];
    /* PoRep: the request's vanilla_proof (not owned, owned = NULL);
     * PoSt and SnapDeals: the envelope built from the request, owned
     * (free with cz_grpc_submit_free) */
    const uint8_t *payload;
    uint8_t *owned;
    size_t payload_len;
    uint32_t partitions;
    cz_priority priority;
    char request_id[256];
} cz_grpc_submit;

/* Validates and maps one request:
 *  - proof_kind and registered_proof pick the circuit (docs/grpc.md);
 *  - sector_size, when non-zero, must be the registered proof's;
 *  - PoRep: vanilla_proof is the C1 output (Curio's wrapper JSON or the
 *    filecoin-proofs-api JSON). It is parsed here (structure only: the
 *    back-end checks the values), its registered proof must be the
 *    request's, the wrapper's SectorNum the request's sector_number, and
 *    its replica_id the one of (prover id of miner_id, sector_number,
 *    ticket, comm_d, porep_id) — a C1 of another miner or sector is
 *    refused before any proving; partitions = the proof's;
 *  - WinningPoSt / WindowPoSt: randomness 32 bytes, vanilla_proofs one
 *    bincode FallbackPoStSectorProof per sector (winning: exactly one,
 *    partition_index 0; window: the partition's sectors), the prover id
 *    from miner_id; packed into the envelope of cuzk/fil_post.h and parsed
 *    (structure, counts, canonical randomness); partitions = 1;
 *  - SnapDeals: comm_r_old, comm_r_new, comm_d_new 32 bytes each,
 *    vanilla_proofs one bincode PartitionProof per partition (all of
 *    them); parsed and packed into the envelope of cuzk/fil_snap.h;
 *    partitions = the proof's (16 for 32GiB/64GiB, else 1);
 *  - request_id: 0..255 printable ASCII; priority UNSPECIFIED = the
 *    kind's default (WinningPoSt critical, WindowPoSt high, else normal).
 * max_payload bounds vanilla_proof, and vanilla_proofs together. Returns 0
 * or a gRPC status code; on 0 the caller frees out with
 * cz_grpc_submit_free (nothing to free on an error). */
int cz_grpc_map_submit(const Cuzk__V1__SubmitProofRequest *req, uint64_t max_payload, cz_grpc_submit *out,
                       char *err, size_t errlen);
void cz_grpc_submit_free(cz_grpc_submit *m);

/* Job ids on the wire: the engine's decimal id. Returns false (and names
 * the problem) when s is not one. */
bool cz_grpc_parse_job_id(const char *s, cz_job_id *out, char *err, size_t errlen);

/* Checks an "authorization" metadata value against the expected bearer
 * token in constant time (time depends only on the expected length). */
bool cz_grpc_auth_ok(const char *expected, size_t elen, const char *value, size_t vlen);

#endif
