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

/* Filecoin's prover id of a miner actor: the unsigned LEB128 encoding of
 * the actor id (an ID address's payload), zero-padded to 32 bytes. */
void cz_grpc_prover_id(uint64_t miner_id, uint8_t out[32]);

/* Maps Curio's circuit ids (PreloadSRS/EvictSRS: "porep-32g", "wpost-32g",
 * "winning-32g", "snap-32g", ... with sizes 2k, 8m, 512m, 32g, 64g) to
 * cuzk's. Returns 0 with out filled (cuzk's id, NUL-terminated), or
 * UNIMPLEMENTED for a Filecoin circuit cuzk does not build yet, or
 * INVALID_ARGUMENT for an id that is neither. Ids outside Curio's naming
 * (cuzk's own circuits such as mulchain-N) pass through unchanged. */
int cz_grpc_circuit_id(const char *curio_id, char *out, size_t outlen, char *err, size_t errlen);

/* Curio's queue label of a cuzk circuit id ("porep-c2", "snap-update",
 * "window-post", "winning-post"; others: the circuit id itself). */
const char *cz_grpc_kind_label(const char *circuit_id);

/* A SubmitProofRequest mapped onto the engine. */
typedef struct {
    char circuit[128];
    const uint8_t *payload;  /* points into the request (not owned) */
    size_t payload_len;
    uint32_t partitions;
    cz_priority priority;
    char request_id[256];
} cz_grpc_submit;

/* Validates and maps one request:
 *  - proof_kind and registered_proof pick the circuit (docs/grpc.md); a
 *    kind cuzk does not build yet is UNIMPLEMENTED, naming it;
 *  - sector_size, when non-zero, must be the registered proof's;
 *  - PoRep: vanilla_proof is the C1 output (Curio's wrapper JSON or the
 *    filecoin-proofs-api JSON). It is parsed here (structure only: the
 *    back-end checks the values), its registered proof must be the
 *    request's, the wrapper's SectorNum the request's sector_number, and
 *    its replica_id the one of (prover id of miner_id, sector_number,
 *    ticket, comm_d, porep_id) — a C1 of another miner or sector is
 *    refused before any proving; partitions = the proof's;
 *  - request_id: 0..255 printable ASCII; priority UNSPECIFIED = the
 *    kind's default (WinningPoSt critical, WindowPoSt high, else normal).
 * max_payload bounds vanilla_proof. Returns 0 or a gRPC status code. */
int cz_grpc_map_submit(const Cuzk__V1__SubmitProofRequest *req, uint64_t max_payload, cz_grpc_submit *out,
                       char *err, size_t errlen);

/* Job ids on the wire: the engine's decimal id. Returns false (and names
 * the problem) when s is not one. */
bool cz_grpc_parse_job_id(const char *s, cz_job_id *out, char *err, size_t errlen);

/* Checks an "authorization" metadata value against the expected bearer
 * token in constant time (time depends only on the expected length). */
bool cz_grpc_auth_ok(const char *expected, size_t elen, const char *value, size_t vlen);

#endif
