/*
 * cuzkd's gRPC request mapping (see grpc_api.h; the tables are in
 * docs/grpc.md). Total functions of their input: fuzz_grpc drives them.
 */
#include "daemon/grpc_api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuzk/fil_c1.h"
#include "cuzk/fil_challenge.h"
#include "cuzk/fil_post.h"
#include "cuzk/fil_snap.h"
#include "cuzk/filecoin.h"
#include "daemon/api.h"

static int errf(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int errf(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

int cz_grpc_status_of(cz_status st)
{
    switch (st) {
    case CZ_OK: return CZ_GRPC_OK;
    case CZ_ERR_INVALID_ARG:
    case CZ_ERR_FORMAT:
    case CZ_ERR_MISMATCH:
    case CZ_ERR_TRUNCATED:
    case CZ_ERR_UNSATISFIED: return CZ_GRPC_INVALID_ARGUMENT;
    case CZ_ERR_UNSUPPORTED: return CZ_GRPC_UNIMPLEMENTED;
    case CZ_ERR_NOT_FOUND: return CZ_GRPC_NOT_FOUND;
    case CZ_ERR_BUSY: return CZ_GRPC_ALREADY_EXISTS;
    case CZ_ERR_BUDGET:
    case CZ_ERR_QUEUE_FULL:
    case CZ_ERR_NOMEM: return CZ_GRPC_RESOURCE_EXHAUSTED;
    case CZ_ERR_CANCELLED: return CZ_GRPC_UNAVAILABLE; /* shutting down: retry elsewhere */
    case CZ_ERR_DEVICE: return CZ_GRPC_UNAVAILABLE;    /* a device failed: retry elsewhere */
    case CZ_ERR_TIMEOUT: return CZ_GRPC_DEADLINE_EXCEEDED;
    case CZ_ERR_IO: return CZ_GRPC_FAILED_PRECONDITION; /* parameters missing or unreadable */
    default: return CZ_GRPC_INTERNAL;
    }
}

/* ---- proof kinds and registered proofs ------------------------------------------ */

/* Curio's size suffixes, in RegisteredSealProof order within a version. */
static const struct {
    const char *suffix;
    uint64_t bytes;
} k_sizes[5] = {
    {"2k", 2048ULL}, {"8m", 8ULL << 20}, {"512m", 512ULL << 20}, {"32g", 32ULL << 30}, {"64g", 64ULL << 30},
};

static const char *size_name(uint64_t b)
{
    static const char *const n[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    for (int i = 0; i < 5; i++)
        if (k_sizes[i].bytes == b)
            return n[i];
    return "an unknown size";
}

/* RegisteredPoStProof: 0..4 winning (2KiB..64GiB), 5..9 window v1,
 * 10..14 window v1_1 (the fixed WindowPoSt). RegisteredUpdateProof:
 * 0..4. Both as Filecoin's abi and filecoin-proofs-api number them. */
static int post_proof(uint64_t rp, bool winning, uint64_t *size, char *err, size_t errlen)
{
    if (winning) {
        if (rp > 4)
            return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                        "registered_proof %llu is not a WinningPoSt proof (StackedDrgWinning2KiBV1..64GiBV1 are 0..4)",
                        (unsigned long long)rp);
        *size = k_sizes[rp].bytes;
    } else {
        if (rp < 5 || rp > 14)
            return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                        "registered_proof %llu is not a WindowPoSt proof (StackedDrgWindow*V1 are 5..9, *V1_1 10..14)",
                        (unsigned long long)rp);
        *size = k_sizes[(rp - 5) % 5].bytes;
    }
    return 0;
}

static int check_size(uint64_t want, uint64_t got, uint64_t rp, char *err, size_t errlen)
{
    if (got && got != want)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "sector_size %llu does not match registered_proof %llu (a %s proof: %llu bytes)",
                    (unsigned long long)got, (unsigned long long)rp, size_name(want), (unsigned long long)want);
    return 0;
}

static const char *size_suffix(uint64_t bytes)
{
    for (int i = 0; i < 5; i++)
        if (k_sizes[i].bytes == bytes)
            return k_sizes[i].suffix;
    return "?";
}

int cz_grpc_circuit_id(const char *id, char *out, size_t outlen, char *err, size_t errlen)
{
    size_t n = id ? strlen(id) : 0;
    if (!cz_api_name_ok(id, n))
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "circuit_id must be 1..127 characters of [A-Za-z0-9._-] (Curio's ids: porep-32g, wpost-32g, winning-32g, snap-32g, ...)");
    static const char *const kinds[] = {"porep-", "wpost-", "winning-", "snap-"};
    for (int k = 0; k < 4; k++) {
        size_t kl = strlen(kinds[k]);
        if (strncmp(id, kinds[k], kl))
            continue;
        for (int s = 0; s < 5; s++) {
            if (strcmp(id + kl, k_sizes[s].suffix))
                continue;
            if (snprintf(out, outlen, "%s", id) >= (int)outlen)
                return errf(err, errlen, CZ_GRPC_INTERNAL, "circuit id buffer too small");
            return 0;
        }
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "circuit '%s': unknown sector size '%s' (2k, 8m, 512m, 32g, 64g)", id, id + kl);
    }
    if (snprintf(out, outlen, "%s", id) >= (int)outlen)
        return errf(err, errlen, CZ_GRPC_INTERNAL, "circuit id buffer too small");
    return 0;
}

const char *cz_grpc_kind_label(const char *c)
{
    if (!strncmp(c, "porep-", 6))
        return "porep-c2";
    if (!strncmp(c, "snap-", 5))
        return "snap-update";
    if (!strncmp(c, "wpost-", 6))
        return "window-post";
    if (!strncmp(c, "winning-", 8))
        return "winning-post";
    return c;
}

static bool rid_ok(const char *s)
{
    size_t n = strlen(s);
    if (n > 255)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return false;
    return true;
}

static void hex8(char *dst, const uint8_t *b)
{
    for (int i = 0; i < 8; i++)
        snprintf(dst + 2 * i, 3, "%02x", b[i]);
}

/* The PoRep C2 request: the C1 output, checked against the request. */
static int map_porep(const Cuzk__V1__SubmitProofRequest *req, uint64_t max_payload, cz_grpc_submit *out, char *err,
                     size_t errlen)
{
    uint64_t rp = req->registered_proof;
    const cz_fil_seal_proof *p = rp < 1000 ? cz_fil_seal_proof_by_id((unsigned)rp) : NULL;
    if (!p)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "registered_proof %llu is not a RegisteredSealProof (0..19)", (unsigned long long)rp);
    if (p->challenges == CZ_FIL_CHALLENGES_NON_INTERACTIVE)
        return errf(err, errlen, CZ_GRPC_UNIMPLEMENTED,
                    "registered_proof %llu (%s): non-interactive PoRep needs its partition proofs aggregated "
                    "(SnarkPack), which cuzk does not build yet",
                    (unsigned long long)rp, p->name);
    int rc = check_size(p->sector_size, req->sector_size, rp, err, errlen);
    if (rc)
        return rc;
    if (!req->vanilla_proof.len)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "vanilla_proof is empty (PoRep C2 needs the C1 output: Curio's wrapper JSON)");
    if (req->vanilla_proof.len > max_payload)
        return errf(err, errlen, CZ_GRPC_RESOURCE_EXHAUSTED, "vanilla_proof is %zu bytes, over the %llu-byte limit",
                    req->vanilla_proof.len, (unsigned long long)max_payload);
    cz_fil_c1 c1;
    cz_errbuf pe = {{0}};
    if (cz_fil_c1_parse(&c1, (const char *)req->vanilla_proof.data, req->vanilla_proof.len, &pe) != CZ_OK)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "vanilla_proof: %s", pe.msg);
    rc = 0;
    if (c1.registered_proof != p) {
        rc = errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                  "vanilla_proof is a C1 output of %s (registered_proof %u), the request says %llu (%s)",
                  c1.registered_proof->name, c1.registered_proof->id, (unsigned long long)rp, p->name);
    } else {
        uint8_t prover[32], porep_id[32];
        cz_fil_prover_id_from_miner(req->miner_id, prover);
        cz_fil_porep_id(porep_id, p);
        cz_fil_domain want;
        cz_fil_replica_id(&want, prover, req->sector_number, c1.ticket, &c1.comm_d, porep_id);
        if (memcmp(want.b, c1.replica_id.b, 32)) {
            char h1[17], h2[17];
            hex8(h1, c1.replica_id.b);
            hex8(h2, want.b);
            rc = errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                      "vanilla_proof: its replica_id (%s...) is not the one of miner %llu, sector %llu (%s...): "
                      "the C1 output belongs to another sector or miner",
                      h1, (unsigned long long)req->miner_id, (unsigned long long)req->sector_number, h2);
        }
    }
    size_t parts = c1.npartitions;
    cz_fil_c1_free(&c1);
    if (rc)
        return rc;
    snprintf(out->circuit, sizeof out->circuit, "porep-%s", size_suffix(p->sector_size));
    out->payload = req->vanilla_proof.data;
    out->payload_len = req->vanilla_proof.len;
    out->partitions = (uint32_t)parts;
    return 0;
}

/* The vanilla_proofs of a PoSt or SnapDeals request: at least one, none
 * empty, together within max_payload (the envelope adds 8 bytes each). */
static int check_vanilla_list(const Cuzk__V1__SubmitProofRequest *req, uint64_t max_payload, const char *what,
                              char *err, size_t errlen)
{
    if (!req->n_vanilla_proofs)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "vanilla_proofs is empty (%s needs one per %s)", what,
                    strcmp(what, "SnapDeals") ? "sector" : "partition");
    uint64_t total = 0;
    for (size_t i = 0; i < req->n_vanilla_proofs; i++) {
        if (!req->vanilla_proofs[i].len)
            return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "vanilla_proofs[%zu] is empty", i);
        total += req->vanilla_proofs[i].len + 8;
    }
    if (total > max_payload)
        return errf(err, errlen, CZ_GRPC_RESOURCE_EXHAUSTED,
                    "vanilla_proofs are %llu bytes together, over the %llu-byte limit (grpc.max_message_bytes)",
                    (unsigned long long)total, (unsigned long long)max_payload);
    return 0;
}

static int map_bytes32(const ProtobufCBinaryData *b, const char *name, char *err, size_t errlen)
{
    if (b->len != 32)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "%s must be 32 bytes, got %zu", name, b->len);
    return 0;
}

/* WinningPoSt / WindowPoSt: the envelope of cuzk/fil_post.h, parsed here
 * for its structure (registered proof, randomness, counts, every sector
 * proof's bincode) so a malformed request is refused at submission; the
 * back-end checks the values (paths, challenges) before proving. */
static int map_post(const Cuzk__V1__SubmitProofRequest *req, bool win, uint64_t max_payload, cz_grpc_submit *out,
                    char *err, size_t errlen)
{
    const cz_fil_post_proof *p = cz_fil_post_proof_by_id((unsigned)req->registered_proof);
    const char *what = win ? "WinningPoSt" : "WindowPoSt";
    int rc = map_bytes32(&req->randomness, "randomness", err, errlen);
    if (!rc) rc = check_vanilla_list(req, max_payload, what, err, errlen);
    if (rc) return rc;
    if (win && req->partition_index)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "partition_index must be 0 for WinningPoSt (got %u)",
                    req->partition_index);
    size_t n = req->n_vanilla_proofs;
    const uint8_t **bufs = malloc(n * sizeof *bufs);
    size_t *lens = malloc(n * sizeof *lens);
    if (!bufs || !lens) {
        free(bufs);
        free(lens);
        return errf(err, errlen, CZ_GRPC_RESOURCE_EXHAUSTED, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        bufs[i] = req->vanilla_proofs[i].data;
        lens[i] = req->vanilla_proofs[i].len;
    }
    uint8_t prover[32];
    cz_fil_prover_id_from_miner(req->miner_id, prover);
    uint8_t *env = NULL;
    size_t env_len = 0;
    cz_status st = cz_fil_post_request_encode_raw(p->id, prover, req->randomness.data, req->partition_index, bufs,
                                                  lens, n, &env, &env_len);
    free(bufs);
    free(lens);
    if (st != CZ_OK) return errf(err, errlen, CZ_GRPC_INTERNAL, "cannot build the %s request: %s", what, cz_status_str(st));
    cz_fil_post_request r;
    cz_errbuf pe = {{0}};
    st = cz_fil_post_request_parse(&r, env, env_len, &pe);
    if (st != CZ_OK) {
        free(env);
        return errf(err, errlen, st == CZ_ERR_NOMEM ? CZ_GRPC_RESOURCE_EXHAUSTED : CZ_GRPC_INVALID_ARGUMENT, "%s: %s",
                    what, pe.msg);
    }
    cz_fil_post_request_free(&r);
    snprintf(out->circuit, sizeof out->circuit, "%s", p->circuit_id);
    out->owned = env;
    out->payload = env;
    out->payload_len = env_len;
    out->partitions = 1;
    return 0;
}

/* SnapDeals: the three commitments and one bincode PartitionProof per
 * partition, parsed (shape, canonical values) and re-encoded as the
 * envelope of cuzk/fil_snap.h; the back-end checks the values. */
static int map_snap(const Cuzk__V1__SubmitProofRequest *req, uint64_t max_payload, cz_grpc_submit *out, char *err,
                    size_t errlen)
{
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_id((unsigned)req->registered_proof);
    int rc = map_bytes32(&req->comm_r_old, "comm_r_old", err, errlen);
    if (!rc) rc = map_bytes32(&req->comm_r_new, "comm_r_new", err, errlen);
    if (!rc) rc = map_bytes32(&req->comm_d_new, "comm_d_new", err, errlen);
    if (!rc) rc = check_vanilla_list(req, max_payload, "SnapDeals", err, errlen);
    if (rc) return rc;
    if (req->n_vanilla_proofs != p->partitions)
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "vanilla_proofs has %zu partition proofs, %s has %u partitions", req->n_vanilla_proofs, p->name,
                    p->partitions);
    size_t n = req->n_vanilla_proofs;
    const uint8_t *bufs[CZ_FIL_SNAP_MAX_PARTITIONS];
    size_t lens[CZ_FIL_SNAP_MAX_PARTITIONS];
    for (size_t i = 0; i < n; i++) {
        bufs[i] = req->vanilla_proofs[i].data;
        lens[i] = req->vanilla_proofs[i].len;
    }
    cz_fil_snap_request r;
    cz_errbuf pe = {{0}};
    cz_status st = cz_fil_snap_request_from_parts(&r, p->id >= 0 ? (unsigned)p->id : 0, req->comm_r_old.data,
                                                  req->comm_r_new.data, req->comm_d_new.data, bufs, lens, n, &pe);
    if (st != CZ_OK)
        return errf(err, errlen, st == CZ_ERR_NOMEM ? CZ_GRPC_RESOURCE_EXHAUSTED : CZ_GRPC_INVALID_ARGUMENT,
                    "SnapDeals: %s", pe.msg);
    uint8_t *env = NULL;
    size_t env_len = 0;
    st = cz_fil_snap_request_encode(&r, &env, &env_len);
    cz_fil_snap_request_free(&r);
    if (st != CZ_OK)
        return errf(err, errlen, CZ_GRPC_INTERNAL, "cannot build the SnapDeals request: %s", cz_status_str(st));
    snprintf(out->circuit, sizeof out->circuit, "%s", p->circuit_id);
    out->owned = env;
    out->payload = env;
    out->payload_len = env_len;
    out->partitions = p->partitions;
    return 0;
}

void cz_grpc_submit_free(cz_grpc_submit *m)
{
    if (!m) return;
    free(m->owned);
    m->owned = NULL;
    m->payload = NULL;
    m->payload_len = 0;
}

int cz_grpc_map_submit(const Cuzk__V1__SubmitProofRequest *req, uint64_t max_payload, cz_grpc_submit *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *rid = req->request_id ? req->request_id : "";
    if (!rid_ok(rid))
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "request_id must be 0..255 printable ASCII characters");
    snprintf(out->request_id, sizeof out->request_id, "%s", rid);
    int rc;
    uint64_t size = 0;
    switch (req->proof_kind) {
    case CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT:
        rc = map_porep(req, max_payload, out, err, errlen);
        if (rc)
            return rc;
        break;
    case CUZK__V1__PROOF_KIND__WINNING_POST:
    case CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION: {
        bool win = req->proof_kind == CUZK__V1__PROOF_KIND__WINNING_POST;
        rc = post_proof(req->registered_proof, win, &size, err, errlen);
        if (!rc)
            rc = check_size(size, req->sector_size, req->registered_proof, err, errlen);
        if (!rc)
            rc = map_post(req, win, max_payload, out, err, errlen);
        if (rc)
            return rc;
        break;
    }
    case CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE:
        if (req->registered_proof > 4)
            return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                        "registered_proof %llu is not a RegisteredUpdateProof (StackedDrg2KiBV1..64GiBV1 are 0..4)",
                        (unsigned long long)req->registered_proof);
        size = k_sizes[req->registered_proof].bytes;
        rc = check_size(size, req->sector_size, req->registered_proof, err, errlen);
        if (!rc)
            rc = map_snap(req, max_payload, out, err, errlen);
        if (rc)
            return rc;
        break;
    case CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED:
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "proof_kind is unset (POREP_SEAL_COMMIT=1, SNAP_DEALS_UPDATE=2, WINDOW_POST_PARTITION=3, WINNING_POST=4)");
    default:
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "unknown proof_kind %d (1..4)", (int)req->proof_kind);
    }
    switch (req->priority) {
    case CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED: out->priority = cz_api_default_priority(out->circuit); break;
    case CUZK__V1__PRIORITY__LOW: out->priority = CZ_PRIO_LOW; break;
    case CUZK__V1__PRIORITY__NORMAL: out->priority = CZ_PRIO_NORMAL; break;
    case CUZK__V1__PRIORITY__HIGH: out->priority = CZ_PRIO_HIGH; break;
    case CUZK__V1__PRIORITY__CRITICAL: out->priority = CZ_PRIO_CRITICAL; break;
    default:
        cz_grpc_submit_free(out);
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "unknown priority %d (LOW=1 .. CRITICAL=4)",
                    (int)req->priority);
    }
    return 0;
}

bool cz_grpc_parse_job_id(const char *s, cz_job_id *out, char *err, size_t errlen)
{
    size_t n = s ? strlen(s) : 0;
    if (cz_api_parse_job_id(s, n, out))
        return true;
    char shown[48];
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < sizeof shown; i++)
        shown[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    shown[j] = 0;
    errf(err, errlen, 0, "job_id '%s' is not a job id (a decimal number from SubmitProof)", shown);
    return false;
}

bool cz_grpc_auth_ok(const char *expected, size_t elen, const char *value, size_t vlen)
{
    char buf[1024];
    if (!value || vlen >= sizeof buf) {
        (void)cz_api_token_equal(expected, elen, "", 0); /* same time as a wrong token */
        return false;
    }
    memcpy(buf, value, vlen);
    buf[vlen] = 0;
    const char *tok;
    size_t tl;
    if (!cz_api_bearer(buf, &tok, &tl)) {
        (void)cz_api_token_equal(expected, elen, "", 0);
        return false;
    }
    return cz_api_token_equal(expected, elen, tok, tl);
}
