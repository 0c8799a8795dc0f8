/*
 * cuzkd's gRPC request mapping (see grpc_api.h; the tables are in
 * docs/grpc.md). Total functions of their input: fuzz_grpc drives them.
 */
#include "daemon/grpc_api.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cuzk/fil_c1.h"
#include "cuzk/fil_challenge.h"
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
    case CZ_ERR_NOMEM: return CZ_GRPC_RESOURCE_EXHAUSTED;
    case CZ_ERR_CANCELLED: return CZ_GRPC_UNAVAILABLE; /* shutting down: retry elsewhere */
    case CZ_ERR_TIMEOUT: return CZ_GRPC_DEADLINE_EXCEEDED;
    case CZ_ERR_IO: return CZ_GRPC_FAILED_PRECONDITION; /* parameters missing or unreadable */
    default: return CZ_GRPC_INTERNAL;
    }
}

void cz_grpc_prover_id(uint64_t miner_id, uint8_t out[32])
{
    memset(out, 0, 32);
    size_t i = 0;
    do {
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = miner_id ? (uint8_t)(b | 0x80) : b;
    } while (miner_id && i < 32); /* a u64 takes at most 10 bytes */
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
            if (k != 0)
                return errf(err, errlen, CZ_GRPC_UNIMPLEMENTED,
                            "circuit '%s': cuzk does not build the %s circuit yet (PoRep C2 only: porep-2k .. porep-64g)",
                            id, k == 1 ? "WindowPoSt" : k == 2 ? "WinningPoSt" : "SnapDeals");
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
        cz_grpc_prover_id(req->miner_id, prover);
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

int cz_grpc_map_submit(const Cuzk__V1__SubmitProofRequest *req, uint64_t max_payload, cz_grpc_submit *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *rid = req->request_id ? req->request_id : "";
    if (!rid_ok(rid))
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "request_id must be 0..255 printable ASCII characters");
    snprintf(out->request_id, sizeof out->request_id, "%s", rid);
    cz_priority def = CZ_PRIO_NORMAL;
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
        def = win ? CZ_PRIO_CRITICAL : CZ_PRIO_HIGH;
        rc = post_proof(req->registered_proof, win, &size, err, errlen);
        if (!rc)
            rc = check_size(size, req->sector_size, req->registered_proof, err, errlen);
        if (rc)
            return rc;
        return errf(err, errlen, CZ_GRPC_UNIMPLEMENTED,
                    "%s proofs (circuit %s-%s) are not built by cuzk yet: only PoRep C2 (POREP_SEAL_COMMIT)",
                    win ? "WinningPoSt" : "WindowPoSt", win ? "winning" : "wpost", size_suffix(size));
    }
    case CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE:
        if (req->registered_proof > 4)
            return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                        "registered_proof %llu is not a RegisteredUpdateProof (StackedDrg2KiBV1..64GiBV1 are 0..4)",
                        (unsigned long long)req->registered_proof);
        size = k_sizes[req->registered_proof].bytes;
        rc = check_size(size, req->sector_size, req->registered_proof, err, errlen);
        if (rc)
            return rc;
        return errf(err, errlen, CZ_GRPC_UNIMPLEMENTED,
                    "SnapDeals proofs (circuit snap-%s) are not built by cuzk yet: only PoRep C2 (POREP_SEAL_COMMIT)",
                    size_suffix(size));
    case CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED:
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT,
                    "proof_kind is unset (POREP_SEAL_COMMIT=1, SNAP_DEALS_UPDATE=2, WINDOW_POST_PARTITION=3, WINNING_POST=4)");
    default:
        return errf(err, errlen, CZ_GRPC_INVALID_ARGUMENT, "unknown proof_kind %d (1..4)", (int)req->proof_kind);
    }
    switch (req->priority) {
    case CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED: out->priority = def; break;
    case CUZK__V1__PRIORITY__LOW: out->priority = CZ_PRIO_LOW; break;
    case CUZK__V1__PRIORITY__NORMAL: out->priority = CZ_PRIO_NORMAL; break;
    case CUZK__V1__PRIORITY__HIGH: out->priority = CZ_PRIO_HIGH; break;
    case CUZK__V1__PRIORITY__CRITICAL: out->priority = CZ_PRIO_CRITICAL; break;
    default:
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
