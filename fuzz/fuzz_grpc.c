/*
 * libFuzzer: cuzkd's gRPC request decoding and mapping (protobuf-c
 * unpacking of every request message of cuzk.v1.ProvingEngine, then
 * src/daemon/grpc_api.c), not the network. Input: one selector byte (the
 * method) then the message bytes. Invariants for accepted input:
 *  - a mapped submit names a PoRep circuit id, 1..65536 partitions, a
 *    payload inside the request and within the limit, a printable
 *    request id, a valid priority;
 *  - every refusal carries a non-empty message and a known gRPC code;
 *  - circuit ids that map pass cz_api_name_ok.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/api.h"
#include "daemon/grpc_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "invariant violated: %s\n", what);
        abort();
    }
}

static void check_code(int rc, const char *err)
{
    check(rc == 0 || (rc > 0 && rc <= 16 && rc != 11), "known gRPC code");
    check(rc == 0 || err[0] != 0, "refusal has a message");
}

static void submit(const Cuzk__V1__SubmitProofRequest *req)
{
    char err[640] = "";
    cz_grpc_submit m;
    const uint64_t limit = 1u << 20;
    int rc = cz_grpc_map_submit(req, limit, &m, err, sizeof err);
    check_code(rc, err);
    if (rc)
        return;
    bool porep = !strncmp(m.circuit, "porep-", 6);
    check(porep || !strncmp(m.circuit, "winning-", 8) || !strncmp(m.circuit, "wpost-", 6) ||
              !strncmp(m.circuit, "snap-", 5),
          "circuit is a Filecoin id");
    check(cz_api_name_ok(m.circuit, strlen(m.circuit)), "circuit id valid");
    check(m.partitions >= 1 && m.partitions <= 65536, "partitions in range");
    if (porep)
        check(!m.owned && m.payload == req->vanilla_proof.data && m.payload_len == req->vanilla_proof.len,
              "PoRep payload is the request's");
    else
        check(m.owned && m.payload == m.owned && m.payload_len > 0, "PoSt/SnapDeals payload is the built envelope");
    check(porep ? m.payload_len <= limit : m.payload_len <= limit + 160, "payload within the limit");
    cz_grpc_submit_free(&m);
    check((unsigned)m.priority <= CZ_PRIO_CRITICAL, "priority valid");
    for (const char *p = m.request_id; *p; p++)
        check(*p > 0x20 && *p < 0x7f, "request id printable");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned sel = data[0] % 5;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    char err[640] = "";
    switch (sel) {
    case 0: {
        Cuzk__V1__SubmitProofRequest *r = cuzk__v1__submit_proof_request__unpack(NULL, len, in);
        if (r) {
            submit(r);
            cuzk__v1__submit_proof_request__free_unpacked(r, NULL);
        }
        break;
    }
    case 1: {
        Cuzk__V1__ProveRequest *r = cuzk__v1__prove_request__unpack(NULL, len, in);
        if (r) {
            if (r->submit)
                submit(r->submit);
            cuzk__v1__prove_request__free_unpacked(r, NULL);
        }
        break;
    }
    case 2: {
        Cuzk__V1__AwaitProofRequest *r = cuzk__v1__await_proof_request__unpack(NULL, len, in);
        if (r) {
            cz_job_id id;
            if (cz_grpc_parse_job_id(r->job_id, &id, err, sizeof err))
                check(id != 0, "job id non-zero");
            else
                check(err[0] != 0, "bad job id has a message");
            cuzk__v1__await_proof_request__free_unpacked(r, NULL);
        }
        break;
    }
    case 3: {
        Cuzk__V1__PreloadSrsRequest *r = cuzk__v1__preload_srs_request__unpack(NULL, len, in);
        if (r) {
            char id[128];
            int rc = cz_grpc_circuit_id(r->circuit_id, id, sizeof id, err, sizeof err);
            check_code(rc, err);
            if (!rc)
                check(cz_api_name_ok(id, strlen(id)), "mapped circuit id valid");
            cuzk__v1__preload_srs_request__free_unpacked(r, NULL);
        }
        break;
    }
    default: {
        Cuzk__V1__CancelProofRequest *r = cuzk__v1__cancel_proof_request__unpack(NULL, len, in);
        if (r) {
            cz_job_id id;
            (void)cz_grpc_parse_job_id(r->job_id, &id, err, sizeof err);
            cuzk__v1__cancel_proof_request__free_unpacked(r, NULL);
        }
        /* the bearer check on arbitrary bytes */
        (void)cz_grpc_auth_ok("token", 5, (const char *)in, len);
        break;
    }
    }
    return 0;
}
