/*
 * cuzk — hash and stream primitives that Filecoin's algorithms are built on:
 * BLAKE2b / BLAKE2s (RFC 7693) and the ChaCha block function (RFC 8439 and
 * the rand_chacha 0.3 stream generators).
 *
 * These are plain, portable C; nothing here depends on field arithmetic.
 * tests/filecoin/test_fil_hash.c checks them against OpenSSL and the RFC
 * vectors.
 */
#ifndef CUZK_FIL_HASH_H
#define CUZK_FIL_HASH_H

#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- BLAKE2b (64-bit words, 12 rounds) ----------------------------------- */
typedef struct {
    uint64_t h[8];
    uint64_t t[2];
    uint8_t buf[128];
    size_t nbuf;
    size_t outlen;
} cz_blake2b_ctx;

/* outlen 1..64; key NULL/0 or up to 64 bytes (keyed mode as RFC 7693 §2.9,
 * which is what blake2b_simd's Params::key does). Returns CZ_ERR_INVALID_ARG
 * on a bad length. */
CZ_WUR cz_status cz_blake2b_init(cz_blake2b_ctx *c, size_t outlen, const void *key, size_t keylen);
void cz_blake2b_update(cz_blake2b_ctx *c, const void *data, size_t len);
/* Writes c->outlen bytes. */
void cz_blake2b_final(cz_blake2b_ctx *c, uint8_t *out);
/* One-shot unkeyed BLAKE2b-512 (blake2b_simd::blake2b). */
void cz_blake2b_512(uint8_t out[64], const void *data, size_t len);

/* ---- BLAKE2s (32-bit words, 10 rounds) ----------------------------------- */
typedef struct {
    uint32_t h[8];
    uint32_t t[2];
    uint8_t buf[64];
    size_t nbuf;
    size_t outlen;
} cz_blake2s_ctx;

/* outlen 1..32; key NULL/0 or up to 32 bytes. */
CZ_WUR cz_status cz_blake2s_init(cz_blake2s_ctx *c, size_t outlen, const void *key, size_t keylen);
void cz_blake2s_update(cz_blake2s_ctx *c, const void *data, size_t len);
void cz_blake2s_final(cz_blake2s_ctx *c, uint8_t *out);
/* One-shot unkeyed BLAKE2s-256. */
void cz_blake2s_256(uint8_t out[32], const void *data, size_t len);

/* ---- ChaCha ------------------------------------------------------------------ */
/* One block: out = ChaCha_rounds(constants ‖ key ‖ w12..w15) + input, as 16
 * little-endian words (serialize with le32 per word for the keystream
 * bytes). rounds is 8, 12 or 20. */
void cz_chacha_block(uint32_t out[16], const uint32_t key[8], const uint32_t w12_15[4],
                     unsigned rounds);

/* rand_chacha 0.3 ChaChaXRng::from_seed(seed): key = seed (LE words), a
 * 64-bit block counter in words 12–13 from 0, stream id 0 in words 14–15.
 * next_u32 returns the keystream words in order; next_u64 = lo | hi << 32
 * of the next two words (rand_core BlockRng, whose 64-word buffer is one
 * continuous stream); fill_bytes takes the keystream bytes in order, as
 * rand_core's fill_via_u32_chunks does, dropping the unused tail of the
 * last word consumed. */
typedef struct {
    uint32_t key[8];
    uint64_t counter;   /* next block to generate */
    uint32_t buf[16];
    unsigned idx;       /* next word of buf; 16 = empty */
    unsigned rounds;
} cz_chacha_rng;

void cz_chacha_rng_init(cz_chacha_rng *r, const uint8_t seed[32], unsigned rounds);
uint32_t cz_chacha_rng_next_u32(cz_chacha_rng *r);
uint64_t cz_chacha_rng_next_u64(cz_chacha_rng *r);
void cz_chacha_rng_fill_bytes(cz_chacha_rng *r, uint8_t *out, size_t len);

/* IETF ChaCha20 stream cipher (RFC 8439 §2.4; the RustCrypto `chacha20`
 * crate's ChaCha20): 96-bit nonce, 32-bit block counter from 0. The
 * keystream position is a byte offset, so apply/seek work at any
 * granularity. */
typedef struct {
    uint32_t key[8];
    uint32_t nonce[3];
    uint64_t pos;       /* byte offset into the keystream */
    uint8_t block[64];
    uint64_t block_no;  /* block held in `block`, or UINT64_MAX */
} cz_chacha20_ietf;

void cz_chacha20_ietf_init(cz_chacha20_ietf *c, const uint8_t key[32], const uint8_t nonce[12]);
/* data ^= keystream[pos .. pos + len); pos += len. */
void cz_chacha20_ietf_apply(cz_chacha20_ietf *c, uint8_t *data, size_t len);
void cz_chacha20_ietf_seek(cz_chacha20_ietf *c, uint64_t byte_pos);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_HASH_H */
