/*
 * Registered seal proofs (filecoin-proofs-api RegisteredSealProof, numbers
 * as on chain) and domain conversions.
 *
 * Facts (filecoin-proofs 19.1 constants.rs):
 * - layers 2 for 2KiB/8MiB/512MiB, 11 for 32/64GiB;
 * - interactive: 1 partition × 2 challenges (small), 10 partitions with 176
 *   challenges in all, so 18 per partition (MAX_CHALLENGES_PER_PARTITION);
 * - non-interactive: 26 challenges over 13 partitions (small), 2253 over
 *   126 partitions (18 per partition) for 32/64GiB;
 * - synthetic proofs take the interactive counts;
 * - tree R: 8-0-0 up to 512MiB, 8-8-0 for 32GiB, 8-8-2 for 64GiB.
 * API versions (filecoin-proofs-api RegisteredSealProof::version): ..._V1
 * is 1.0.0, ..._V1_1 is 1.1.0, and both feature variants are 1.2.0 — the
 * synthetic ones too, despite their "V1_1" names (SyntheticPoRep's first
 * supported version is 1.2.0). 1.1 and 1.2 share the graph; only 1.0's
 * parent order differs.
 * The vanilla proofs of every variant are keyed by the V1 name of the size
 * (filecoin-proofs-api's VanillaSealProof has only those variants).
 */
#include "cuzk/filecoin.h"

#include <string.h>
#include <stdlib.h>
#include <errno.h>

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)

#define SMALL(id, nm, vn, cid, sz, api, mode, parts, cpp, total) \
    { id, nm, vn, cid, sz, api, mode, 2, parts, cpp, total, 0, 0 }
#define LARGE(id, nm, vn, cid, sz, api, mode, parts, cpp, total, sub, top) \
    { id, nm, vn, cid, sz, api, mode, 11, parts, cpp, total, sub, top }

const cz_fil_seal_proof cz_fil_seal_proofs[] = {
    SMALL(0, "StackedDrg2KiBV1", "StackedDrg2KiBV1", "porep-2k", 2 * KiB, CZ_FIL_API_1_0, CZ_FIL_CHALLENGES_INTERACTIVE, 1, 2, 2),
    SMALL(1, "StackedDrg8MiBV1", "StackedDrg8MiBV1", "porep-8m", 8 * MiB, CZ_FIL_API_1_0, CZ_FIL_CHALLENGES_INTERACTIVE, 1, 2, 2),
    SMALL(2, "StackedDrg512MiBV1", "StackedDrg512MiBV1", "porep-512m", 512 * MiB, CZ_FIL_API_1_0, CZ_FIL_CHALLENGES_INTERACTIVE, 1, 2, 2),
    LARGE(3, "StackedDrg32GiBV1", "StackedDrg32GiBV1", "porep-32g", 32 * GiB, CZ_FIL_API_1_0, CZ_FIL_CHALLENGES_INTERACTIVE, 10, 18, 176, 8, 0),
    LARGE(4, "StackedDrg64GiBV1", "StackedDrg64GiBV1", "porep-64g", 64 * GiB, CZ_FIL_API_1_0, CZ_FIL_CHALLENGES_INTERACTIVE, 10, 18, 176, 8, 2),
    SMALL(5, "StackedDrg2KiBV1_1", "StackedDrg2KiBV1", "porep-2k", 2 * KiB, CZ_FIL_API_1_1, CZ_FIL_CHALLENGES_INTERACTIVE, 1, 2, 2),
    SMALL(6, "StackedDrg8MiBV1_1", "StackedDrg8MiBV1", "porep-8m", 8 * MiB, CZ_FIL_API_1_1, CZ_FIL_CHALLENGES_INTERACTIVE, 1, 2, 2),
    SMALL(7, "StackedDrg512MiBV1_1", "StackedDrg512MiBV1", "porep-512m", 512 * MiB, CZ_FIL_API_1_1, CZ_FIL_CHALLENGES_INTERACTIVE, 1, 2, 2),
    LARGE(8, "StackedDrg32GiBV1_1", "StackedDrg32GiBV1", "porep-32g", 32 * GiB, CZ_FIL_API_1_1, CZ_FIL_CHALLENGES_INTERACTIVE, 10, 18, 176, 8, 0),
    LARGE(9, "StackedDrg64GiBV1_1", "StackedDrg64GiBV1", "porep-64g", 64 * GiB, CZ_FIL_API_1_1, CZ_FIL_CHALLENGES_INTERACTIVE, 10, 18, 176, 8, 2),
    SMALL(10, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "StackedDrg2KiBV1", "porep-2k", 2 * KiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_SYNTHETIC, 1, 2, 2),
    SMALL(11, "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", "StackedDrg8MiBV1", "porep-8m", 8 * MiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_SYNTHETIC, 1, 2, 2),
    SMALL(12, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", "StackedDrg512MiBV1", "porep-512m", 512 * MiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_SYNTHETIC, 1, 2, 2),
    LARGE(13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", "StackedDrg32GiBV1", "porep-32g", 32 * GiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_SYNTHETIC, 10, 18, 176, 8, 0),
    LARGE(14, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", "StackedDrg64GiBV1", "porep-64g", 64 * GiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_SYNTHETIC, 10, 18, 176, 8, 2),
    SMALL(15, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg2KiBV1", "porep-2k", 2 * KiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_NON_INTERACTIVE, 13, 2, 26),
    SMALL(16, "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", "StackedDrg8MiBV1", "porep-8m", 8 * MiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_NON_INTERACTIVE, 13, 2, 26),
    SMALL(17, "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", "StackedDrg512MiBV1", "porep-512m", 512 * MiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_NON_INTERACTIVE, 13, 2, 26),
    LARGE(18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", "StackedDrg32GiBV1", "porep-32g", 32 * GiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_NON_INTERACTIVE, 126, 18, 2253, 8, 0),
    LARGE(19, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", "StackedDrg64GiBV1", "porep-64g", 64 * GiB, CZ_FIL_API_1_2, CZ_FIL_CHALLENGES_NON_INTERACTIVE, 126, 18, 2253, 8, 2),
};
const size_t cz_fil_seal_proofs_count = sizeof cz_fil_seal_proofs / sizeof cz_fil_seal_proofs[0];

const cz_fil_seal_proof *cz_fil_seal_proof_by_id(unsigned id) {
    return id < cz_fil_seal_proofs_count ? &cz_fil_seal_proofs[id] : NULL;
}

const cz_fil_seal_proof *cz_fil_seal_proof_by_name(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++)
        if (strcmp(cz_fil_seal_proofs[i].name, name) == 0) return &cz_fil_seal_proofs[i];
    return NULL;
}

const cz_fil_seal_proof *cz_fil_seal_proof_find(uint64_t sector_size, cz_fil_api_version api,
                                                cz_fil_challenge_mode mode) {
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++) {
        const cz_fil_seal_proof *p = &cz_fil_seal_proofs[i];
        if (p->sector_size == sector_size && p->api == api && p->challenges == mode) return p;
    }
    return NULL;
}

void cz_fil_porep_id(uint8_t out[32], const cz_fil_seal_proof *p) {
    memset(out, 0, 32);
    uint64_t id = p->id;
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(id >> (8 * i));
    /* bytes 8..15: the nonce, 0 for every registered proof */
}

const char *cz_fil_api_version_str(cz_fil_api_version v) {
    switch (v) {
    case CZ_FIL_API_1_0: return "1.0.0";
    case CZ_FIL_API_1_1: return "1.1.0";
    case CZ_FIL_API_1_2: return "1.2.0";
    }
    return "?";
}

cz_status cz_fil_parse_sector_size(const char *s, uint64_t *out) {
    static const struct { const char *name; uint64_t v; } names[] = {
        { "2KiB", 2 * KiB }, { "8MiB", 8 * MiB }, { "512MiB", 512 * MiB },
        { "32GiB", 32 * GiB }, { "64GiB", 64 * GiB },
    };
    if (!s || !out) return CZ_ERR_INVALID_ARG;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) { *out = names[i].v; return CZ_OK; }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0) return CZ_ERR_INVALID_ARG;
    *out = v;
    return CZ_OK;
}

cz_status cz_fil_domain_to_fr(cz_fr *out, const cz_fil_domain *d) {
    return cz_fr_from_bytes_le(out, d->b);
}

void cz_fil_domain_from_fr(cz_fil_domain *out, const cz_fr *a) {
    cz_fr_to_bytes_le(out->b, a);
}
