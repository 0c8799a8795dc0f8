/*
 * PoRep challenge derivation (storage-proofs-porep
 * stacked/vanilla/challenges.rs): interactive, non-interactive and
 * synthetic, and the dispatch stacked::PublicInputs::challenges does.
 */
#include "cuzk/fil_challenge.h"
#include "cuzk/fil_hash.h"
#include "cuzk/sha256.h"

#include <string.h>

/* Domain-separation strings of the reference, byte for byte (no NUL). */
static const char NI_TAG[] = "filecoin.io|PoRep|1|NonInteractive|1";
static const char SYNTH_GEN_KEY[] = "filecoin.io|PoRep|1|Synthetic|1|Generation";
static const char SYNTH_SEL_KEY[] = "filecoin.io|PoRep|1|Synthetic|1|Selection";
/* CHACHA20_NONCE = b"synth-porep\x00" (12 bytes). */
static const uint8_t SYNTH_NONCE[12] = { 's', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0 };

#define SYNTH_CHALLENGE_SIZE 32u /* keystream bytes per synthetic challenge */
#define SYNTH_INDEX_SIZE 4u      /* keystream bytes per selection index */

uint64_t cz_fil_mod256_u64(const uint8_t h[32], uint64_t m) {
    /* Horner over the four 64-bit words, most significant first; the
     * running remainder stays < m, so (r << 64 | w) fits in 128 bits. */
    unsigned __int128 r = 0;
    for (int w = 3; w >= 0; w--) {
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) v = (v << 8) | h[8 * w + i];
        r = ((r << 64) | v) % m;
    }
    return (uint64_t)r;
}

/* As challenges.rs bigint_to_challenge: never challenge node 0. */
uint64_t cz_fil_challenge_from_hash(const uint8_t h[32], uint64_t nodes) {
    return cz_fil_mod256_u64(h, nodes - 1) + 1;
}

/* As filecoin-proofs parameters.rs select_challenges (div_ceil). */
unsigned cz_fil_challenges_per_partition(const cz_fil_seal_proof *p) {
    return (p->total_challenges + p->partitions - 1) / p->partitions;
}

static cz_status check_nodes(uint64_t nodes) {
    /* The reference debug_asserts nodes < 2^32 and reads the first u32
     * digit of the result; nodes < 2 would divide by zero. */
    return (nodes >= 2 && nodes < (1ull << 32)) ? CZ_OK : CZ_ERR_INVALID_ARG;
}

/* j = count·k + i must fit the reference's u32 and k its u8. */
static cz_status check_partition(size_t count, unsigned k) {
    if (k > 255) return CZ_ERR_INVALID_ARG;
    if (count > 0 && (uint64_t)count * (k + 1) > (1ull << 32)) return CZ_ERR_INVALID_ARG;
    return CZ_OK;
}

static void le32(uint8_t out[4], uint32_t v) {
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(v >> (8 * i));
}

/* Both hash-derived mechanisms: challenge i of partition k is
 * SHA-256(prefix ‖ j as u32 LE), j = count·k + i, reduced by
 * bigint_to_challenge; the prefix state is hashed once and cloned. */
static void challenges_from_prefix(uint64_t *out, size_t count, uint64_t nodes, const cz_sha256_ctx *base,
                                   unsigned k) {
    for (size_t i = 0; i < count; i++) {
        uint8_t j[4], h[32];
        le32(j, (uint32_t)(count * k + i));
        cz_sha256_ctx c = *base;
        cz_sha256_update(&c, j, 4);
        cz_sha256_final(&c, h);
        out[i] = cz_fil_challenge_from_hash(h, nodes);
    }
}

/* As InteractiveChallenges::derive. */
cz_status cz_fil_interactive_challenges(uint64_t *out, size_t count, uint64_t nodes,
                                        const cz_fil_domain *replica_id, const uint8_t seed[32],
                                        unsigned k) {
    if (!out || !replica_id || !seed) return CZ_ERR_INVALID_ARG;
    cz_status st = check_nodes(nodes);
    if (st == CZ_OK) st = check_partition(count, k);
    if (st != CZ_OK) return st;
    cz_sha256_ctx base;
    cz_sha256_init(&base);
    cz_sha256_update(&base, replica_id->b, 32);
    cz_sha256_update(&base, seed, 32);
    challenges_from_prefix(out, count, nodes, &base, k);
    return CZ_OK;
}

/* As NiChallenges::derive: the tag and both commitments are a common
 * prefix, so hash it once and clone the state per challenge, as the
 * reference does. */
cz_status cz_fil_ni_challenges(uint64_t *out, size_t count, uint64_t nodes,
                               const cz_fil_domain *replica_id, const cz_fil_domain *comm_r,
                               unsigned k) {
    if (!out || !replica_id || !comm_r) return CZ_ERR_INVALID_ARG;
    cz_status st = check_nodes(nodes);
    if (st == CZ_OK) st = check_partition(count, k);
    if (st != CZ_OK) return st;
    cz_sha256_ctx base;
    cz_sha256_init(&base);
    cz_sha256_update(&base, NI_TAG, sizeof NI_TAG - 1);
    cz_sha256_update(&base, replica_id->b, 32);
    cz_sha256_update(&base, comm_r->b, 32);
    challenges_from_prefix(out, count, nodes, &base, k);
    return CZ_OK;
}

/* ---- synthetic ------------------------------------------------------------- */

/* As synthetic::chacha20_gen / chacha20_select: the ChaCha20 key is a
 * 32-byte keyed BLAKE2b of replica_id ‖ second (comm_r or the seed). */
static cz_status synth_key(uint8_t key[32], const char *tag, size_t taglen,
                           const uint8_t replica_id[32], const uint8_t second[32]) {
    cz_blake2b_ctx c;
    cz_status st = cz_blake2b_init(&c, 32, tag, taglen);
    if (st != CZ_OK) return st;
    cz_blake2b_update(&c, replica_id, 32);
    cz_blake2b_update(&c, second, 32);
    cz_blake2b_final(&c, key);
    return CZ_OK;
}

cz_status cz_fil_synth_init(cz_fil_synth *s, uint64_t nodes, const cz_fil_domain *replica_id,
                            const cz_fil_domain *comm_r, uint64_t num_synth) {
    if (!s || !replica_id || !comm_r) return CZ_ERR_INVALID_ARG;
    memset(s, 0, sizeof *s);
    cz_status st = check_nodes(nodes);
    if (st != CZ_OK) return st;
    /* The reference turns both into Fr first (From<PoseidonDomain> for Fr
     * panics on a non-canonical repr) and hashes to_repr() of that, which
     * for a canonical value is the same 32 bytes. */
    cz_fr tmp;
    st = cz_fil_domain_to_fr(&tmp, replica_id);
    if (st == CZ_OK) st = cz_fil_domain_to_fr(&tmp, comm_r);
    if (st != CZ_OK) return CZ_ERR_NOT_CANONICAL;
    if (num_synth == 0)
        num_synth = nodes < CZ_FIL_SYNTH_DEFAULT_COUNT ? nodes : CZ_FIL_SYNTH_DEFAULT_COUNT;
    /* SynthChallengeGenerator::new asserts num_synth < 2^32; the keystream
     * seek (i · 32 as u32) must not overflow either. */
    if (num_synth >= (1ull << 32) / SYNTH_CHALLENGE_SIZE) return CZ_ERR_INVALID_ARG;
    s->nodes = nodes;
    s->num_synth = num_synth;
    memcpy(s->replica_id, replica_id->b, 32);
    return synth_key(s->gen_key, SYNTH_GEN_KEY, sizeof SYNTH_GEN_KEY - 1, replica_id->b,
                     comm_r->b);
}

/* As SynthChallengeGenerator::gen_synth_challenge: seek the generation
 * stream to byte 32·i and take 32 keystream bytes as a little-endian
 * integer. */
uint64_t cz_fil_synth_challenge(const cz_fil_synth *s, uint64_t i) {
    cz_chacha20_ietf c;
    uint8_t r[SYNTH_CHALLENGE_SIZE] = { 0 };
    cz_chacha20_ietf_init(&c, s->gen_key, SYNTH_NONCE);
    cz_chacha20_ietf_seek(&c, i * SYNTH_CHALLENGE_SIZE);
    cz_chacha20_ietf_apply(&c, r, sizeof r);
    return cz_fil_challenge_from_hash(r, s->nodes);
}

/* As the SynthChallengeGenerator iterator run to its end
 * (SynthChallenges::derive_synthetic): one continuous keystream. */
void cz_fil_synth_all(const cz_fil_synth *s, uint64_t *out) {
    cz_chacha20_ietf c;
    cz_chacha20_ietf_init(&c, s->gen_key, SYNTH_NONCE);
    for (uint64_t i = 0; i < s->num_synth; i++) {
        uint8_t r[SYNTH_CHALLENGE_SIZE] = { 0 };
        cz_chacha20_ietf_apply(&c, r, sizeof r);
        out[i] = cz_fil_challenge_from_hash(r, s->nodes);
    }
}

/* As SynthChallengeGenerator::gen_partition_synth_indexes: the selection
 * stream is keyed by the seed, partition k starts at index count·k, each
 * index is 4 keystream bytes as u32 LE reduced mod the set size (a plain
 * modulus: the small bias is the reference's). */
cz_status cz_fil_synth_indexes(const cz_fil_synth *s, uint64_t *out, size_t count,
                               const uint8_t seed[32], unsigned k) {
    if (!s || !out || !seed || s->num_synth == 0) return CZ_ERR_INVALID_ARG;
    cz_status st = check_partition(count, k);
    if (st != CZ_OK) return st;
    uint64_t first = (uint64_t)count * k;
    if ((first + count) * SYNTH_INDEX_SIZE > (1ull << 32)) return CZ_ERR_INVALID_ARG;
    uint8_t key[32];
    st = synth_key(key, SYNTH_SEL_KEY, sizeof SYNTH_SEL_KEY - 1, s->replica_id, seed);
    if (st != CZ_OK) return st;
    cz_chacha20_ietf c;
    cz_chacha20_ietf_init(&c, key, SYNTH_NONCE);
    cz_chacha20_ietf_seek(&c, first * SYNTH_INDEX_SIZE);
    for (size_t i = 0; i < count; i++) {
        uint8_t b[SYNTH_INDEX_SIZE] = { 0 };
        cz_chacha20_ietf_apply(&c, b, sizeof b);
        uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24;
        out[i] = v % s->num_synth;
    }
    return CZ_OK;
}

/* As SynthChallengeGenerator::gen_porep_partition_challenges. */
cz_status cz_fil_synth_porep_challenges(const cz_fil_synth *s, uint64_t *out, size_t count,
                                        const uint8_t seed[32], unsigned k) {
    cz_status st = cz_fil_synth_indexes(s, out, count, seed, k);
    if (st != CZ_OK) return st;
    for (size_t i = 0; i < count; i++) out[i] = cz_fil_synth_challenge(s, out[i]);
    return CZ_OK;
}

/* ---- dispatch ------------------------------------------------------------------ */

/* As stacked::PublicInputs::challenges with the seed set (the porep
 * challenges, not the whole synthetic set). */
cz_status cz_fil_challenges_for(uint64_t *out, cz_fil_challenge_mode mode, uint64_t nodes,
                                size_t count, unsigned k, const cz_fil_domain *replica_id,
                                const uint8_t *seed, const cz_fil_domain *comm_r,
                                cz_errbuf *err) {
    if (!out || !replica_id) return cz_err(err, CZ_ERR_INVALID_ARG, "challenges: NULL output or replica_id");
    if (check_nodes(nodes) != CZ_OK)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "challenges: sector of %llu nodes (need 2 <= nodes < 2^32)",
                      (unsigned long long)nodes);
    if (check_partition(count, k) != CZ_OK)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "challenges: partition %u with %zu challenges exceeds the reference's u8/u32",
                      k, count);
    cz_status st;
    switch (mode) {
    case CZ_FIL_CHALLENGES_INTERACTIVE:
        if (!seed) return cz_err(err, CZ_ERR_INVALID_ARG, "interactive challenges need the seed");
        return cz_fil_interactive_challenges(out, count, nodes, replica_id, seed, k);
    case CZ_FIL_CHALLENGES_NON_INTERACTIVE:
        if (!comm_r) return cz_err(err, CZ_ERR_INVALID_ARG, "non-interactive challenges need comm_r");
        return cz_fil_ni_challenges(out, count, nodes, replica_id, comm_r, k);
    case CZ_FIL_CHALLENGES_SYNTHETIC: {
        if (!seed || !comm_r)
            return cz_err(err, CZ_ERR_INVALID_ARG, "synthetic porep challenges need the seed and comm_r");
        cz_fil_synth s;
        st = cz_fil_synth_init(&s, nodes, replica_id, comm_r, 0);
        if (st != CZ_OK)
            return cz_err(err, st, "synthetic challenges: %s",
                          st == CZ_ERR_NOT_CANONICAL ? "replica_id or comm_r is not a canonical Fr"
                                                     : cz_status_str(st));
        return cz_fil_synth_porep_challenges(&s, out, count, seed, k);
    }
    }
    return cz_err(err, CZ_ERR_INVALID_ARG, "unknown challenge mechanism %d", (int)mode);
}

cz_status cz_fil_porep_challenges(uint64_t *out, const cz_fil_seal_proof *p, unsigned k,
                                  const cz_fil_domain *replica_id, const uint8_t *seed,
                                  const cz_fil_domain *comm_r, cz_errbuf *err) {
    if (!p) return cz_err(err, CZ_ERR_INVALID_ARG, "challenges: NULL registered proof");
    if (k >= p->partitions)
        return cz_err(err, CZ_ERR_INVALID_ARG, "%s has %u partitions; asked for partition %u",
                      p->name, p->partitions, k);
    return cz_fil_challenges_for(out, p->challenges, cz_fil_sector_nodes(p),
                                 cz_fil_challenges_per_partition(p), k, replica_id, seed, comm_r,
                                 err);
}
