/*
 * cuzk — SHA-256 (FIPS 180-4): native implementation and in-circuit gadget.
 *
 * In-circuit convention (docs/design.md §5a): a message is a bit string, bits
 * MSB-first within each byte (bit 8i + j of the message is bit 7 − j of
 * byte i); words are big-endian (word w of a block = message bits
 * 32w .. 32w+31, the first of them its MSB); the digest is 256 bits in the
 * same order as the standard byte digest. cz_bits_alloc_bytes
 * (cuzk/gadgets.h) produces this order from bytes.
 *
 * Constraints per compression (all inputs variables): 64 rounds × 200
 * (Σ0, Σ1, Ch, Maj: 32 each; two 35-bit sums: 36 each) + 48 schedule words
 * × 99 (σ0, σ1: 32 each; 4-word sum: 35) + 8 × 34 (feed-forward) = 17,824;
 * fewer when the state or message bits are constant: 17,497 for a first
 * block from the IV with a 440-bit message (padding bits are constants), 0
 * for a block whose state and bits are all constant. tests/gadgets/
 * test_sha256 asserts and prints these counts.
 */
#ifndef CUZK_SHA256_H
#define CUZK_SHA256_H

#include "cuzk/gadgets.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- native ---------------------------------------------------------------- */
extern const uint32_t CZ_SHA256_IV[8];
extern const uint32_t CZ_SHA256_K[64];

typedef struct {
    uint32_t h[8];
    uint64_t len; /* bytes hashed so far */
    uint8_t buf[64];
    size_t nbuf;
} cz_sha256_ctx;

/* One compression: state = compress(state, block). */
void cz_sha256_compress(uint32_t state[8], const uint8_t block[64]);
/* nblocks compressions in a row over 64·nblocks contiguous bytes (no
 * padding added): the way to hash a prepared multi-block message without
 * copying it through a context. */
void cz_sha256_compress_blocks(uint32_t state[8], const uint8_t *blocks, size_t nblocks);

/* Compression paths. The native calls above use the SHA-NI one when the
 * CPU has the SHA extensions (CPUID.7.0:EBX bit 29, with SSSE3/SSE4.1) and
 * the environment variable CUZK_NO_SIMD is unset; the portable one
 * otherwise. The choice is made on first use and then fixed. Both give
 * identical results. */
typedef enum {
    CZ_SHA256_IMPL_PORTABLE = 0,
    CZ_SHA256_IMPL_SHANI = 1
} cz_sha256_impl;

/* Whether the SHA-NI path can run here (false under CUZK_NO_SIMD). */
bool cz_sha256_shani_supported(void);
/* The path the native calls use. */
cz_sha256_impl cz_sha256_active_impl(void);
/* "portable" / "sha-ni"; never NULL. */
const char *cz_sha256_impl_name(cz_sha256_impl impl);
/* cz_sha256_compress_blocks through a chosen path (for tests and
 * benchmarks): CZ_ERR_UNSUPPORTED when that path cannot run here. */
CZ_WUR cz_status cz_sha256_compress_blocks_with(cz_sha256_impl impl, uint32_t state[8],
                                                const uint8_t *blocks, size_t nblocks);
void cz_sha256_init(cz_sha256_ctx *c);
void cz_sha256_update(cz_sha256_ctx *c, const void *data, size_t len);
void cz_sha256_final(cz_sha256_ctx *c, uint8_t out[32]);
void cz_sha256(uint8_t out[32], const void *data, size_t len);

/* ---- gadget ------------------------------------------------------------------ */
/* Message blocks for an n-bit message after padding: (n + 1 + 64 + 511) / 512. */
static inline size_t cz_sha256_blocks(size_t nbits) { return (nbits + 1 + 64 + 511) / 512; }

/* state_out = compress(state_in, block); block: 512 bits (MSB-first order
 * above). state_out may alias state_in. */
void cz_sha256_compress_gadget(cz_cs *cs, cz_u32 state_out[8], const cz_u32 state_in[8],
                               const cz_bit block[512]);
/* Digest bits (256, MSB-first order) of an nbits-bit message (any length;
 * byte strings have nbits = 8·len). Padding bits are constants. */
void cz_sha256_gadget(cz_cs *cs, cz_bit out[256], const cz_bit *msg, size_t nbits);
/* State words from the IV (constants). */
void cz_sha256_iv_gadget(cz_u32 state[8]);
/* Digest bits from a final state (free). */
void cz_sha256_state_to_bits(cz_bit out[256], const cz_u32 state[8]);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_SHA256_H */
