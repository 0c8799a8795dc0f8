/*
 * BLAKE2b / BLAKE2s (RFC 7693) and the ChaCha block function (RFC 8439),
 * with the two stream generators Filecoin's algorithms use: rand_chacha's
 * ChaChaXRng (DRG parents, 64-bit counter) and IETF ChaCha20 (synthetic
 * PoRep challenges, 96-bit nonce).
 *
 * Portable C. These hash small inputs (Feistel rounds, keys, challenge
 * seeds), so no SIMD path: the SDR cost is SHA-256 (cuzk/sha256.h).
 */
#include "cuzk/fil_hash.h"

#include <string.h>

static inline uint64_t ld64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint32_t ld32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }
static inline uint32_t rotr32(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }
static inline uint32_t rotl32(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

/* Message word schedule shared by both BLAKE2 variants (RFC 7693 §2.7). */
static const uint8_t BLAKE2_SIGMA[12][16] = {
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
    { 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
    { 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
    { 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
    { 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
    { 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
    { 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
    { 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
    { 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
    { 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
    { 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
};

/* ---- BLAKE2b ---------------------------------------------------------------- */
static const uint64_t B2B_IV[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

#define B2B_G(a, b, c, d, x, y)           \
    do {                                  \
        v[a] = v[a] + v[b] + (x);         \
        v[d] = rotr64(v[d] ^ v[a], 32);   \
        v[c] = v[c] + v[d];               \
        v[b] = rotr64(v[b] ^ v[c], 24);   \
        v[a] = v[a] + v[b] + (y);         \
        v[d] = rotr64(v[d] ^ v[a], 16);   \
        v[c] = v[c] + v[d];               \
        v[b] = rotr64(v[b] ^ v[c], 63);   \
    } while (0)

static void b2b_compress(cz_blake2b_ctx *c, const uint8_t block[128], int last) {
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = ld64(block + 8 * i);
    for (int i = 0; i < 8; i++) { v[i] = c->h[i]; v[i + 8] = B2B_IV[i]; }
    v[12] ^= c->t[0];
    v[13] ^= c->t[1];
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = BLAKE2_SIGMA[r];
        B2B_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        B2B_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        B2B_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        B2B_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        B2B_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        B2B_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        B2B_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        B2B_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) c->h[i] ^= v[i] ^ v[i + 8];
}

cz_status cz_blake2b_init(cz_blake2b_ctx *c, size_t outlen, const void *key, size_t keylen) {
    if (!c || outlen == 0 || outlen > 64 || keylen > 64 || (keylen && !key)) return CZ_ERR_INVALID_ARG;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 8; i++) c->h[i] = B2B_IV[i];
    /* parameter block word 0: digest length, key length, fanout 1, depth 1 */
    c->h[0] ^= 0x01010000ull ^ ((uint64_t)keylen << 8) ^ outlen;
    c->outlen = outlen;
    if (keylen) {
        /* the key is the first block, zero padded (RFC 7693 §3.3) */
        memcpy(c->buf, key, keylen);
        c->nbuf = 128;
    }
    return CZ_OK;
}

void cz_blake2b_update(cz_blake2b_ctx *c, const void *data, size_t len) {
    const uint8_t *p = data;
    while (len) {
        /* A full buffer is compressed only once more input arrives: the last
         * block must be compressed with the final flag. */
        if (c->nbuf == 128) {
            c->t[0] += 128;
            if (c->t[0] < 128) c->t[1]++;
            b2b_compress(c, c->buf, 0);
            c->nbuf = 0;
        }
        size_t n = 128 - c->nbuf;
        if (n > len) n = len;
        memcpy(c->buf + c->nbuf, p, n);
        c->nbuf += n;
        p += n;
        len -= n;
    }
}

void cz_blake2b_final(cz_blake2b_ctx *c, uint8_t *out) {
    c->t[0] += c->nbuf;
    if (c->t[0] < c->nbuf) c->t[1]++;
    memset(c->buf + c->nbuf, 0, 128 - c->nbuf);
    b2b_compress(c, c->buf, 1);
    for (size_t i = 0; i < c->outlen; i++) out[i] = (uint8_t)(c->h[i / 8] >> (8 * (i % 8)));
}

void cz_blake2b_512(uint8_t out[64], const void *data, size_t len) {
    cz_blake2b_ctx c;
    if (cz_blake2b_init(&c, 64, NULL, 0) != CZ_OK) return; /* cannot fail: fixed valid lengths */
    cz_blake2b_update(&c, data, len);
    cz_blake2b_final(&c, out);
}

/* ---- BLAKE2s ---------------------------------------------------------------- */
static const uint32_t B2S_IV[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
    0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

#define B2S_G(a, b, c, d, x, y)           \
    do {                                  \
        v[a] = v[a] + v[b] + (x);         \
        v[d] = rotr32(v[d] ^ v[a], 16);   \
        v[c] = v[c] + v[d];               \
        v[b] = rotr32(v[b] ^ v[c], 12);   \
        v[a] = v[a] + v[b] + (y);         \
        v[d] = rotr32(v[d] ^ v[a], 8);    \
        v[c] = v[c] + v[d];               \
        v[b] = rotr32(v[b] ^ v[c], 7);    \
    } while (0)

static void b2s_compress(cz_blake2s_ctx *c, const uint8_t block[64], int last) {
    uint32_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = ld32(block + 4 * i);
    for (int i = 0; i < 8; i++) { v[i] = c->h[i]; v[i + 8] = B2S_IV[i]; }
    v[12] ^= c->t[0];
    v[13] ^= c->t[1];
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 10; r++) {
        const uint8_t *s = BLAKE2_SIGMA[r];
        B2S_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        B2S_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        B2S_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        B2S_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        B2S_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        B2S_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        B2S_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        B2S_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) c->h[i] ^= v[i] ^ v[i + 8];
}

cz_status cz_blake2s_init(cz_blake2s_ctx *c, size_t outlen, const void *key, size_t keylen) {
    if (!c || outlen == 0 || outlen > 32 || keylen > 32 || (keylen && !key)) return CZ_ERR_INVALID_ARG;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 8; i++) c->h[i] = B2S_IV[i];
    c->h[0] ^= 0x01010000u ^ ((uint32_t)keylen << 8) ^ (uint32_t)outlen;
    c->outlen = outlen;
    if (keylen) {
        memcpy(c->buf, key, keylen);
        c->nbuf = 64;
    }
    return CZ_OK;
}

void cz_blake2s_update(cz_blake2s_ctx *c, const void *data, size_t len) {
    const uint8_t *p = data;
    while (len) {
        if (c->nbuf == 64) {
            c->t[0] += 64;
            if (c->t[0] < 64) c->t[1]++;
            b2s_compress(c, c->buf, 0);
            c->nbuf = 0;
        }
        size_t n = 64 - c->nbuf;
        if (n > len) n = len;
        memcpy(c->buf + c->nbuf, p, n);
        c->nbuf += n;
        p += n;
        len -= n;
    }
}

void cz_blake2s_final(cz_blake2s_ctx *c, uint8_t *out) {
    c->t[0] += (uint32_t)c->nbuf;
    if (c->t[0] < c->nbuf) c->t[1]++;
    memset(c->buf + c->nbuf, 0, 64 - c->nbuf);
    b2s_compress(c, c->buf, 1);
    for (size_t i = 0; i < c->outlen; i++) out[i] = (uint8_t)(c->h[i / 4] >> (8 * (i % 4)));
}

void cz_blake2s_256(uint8_t out[32], const void *data, size_t len) {
    cz_blake2s_ctx c;
    if (cz_blake2s_init(&c, 32, NULL, 0) != CZ_OK) return; /* cannot fail: fixed valid lengths */
    cz_blake2s_update(&c, data, len);
    cz_blake2s_final(&c, out);
}

/* ---- ChaCha ----------------------------------------------------------------- */
#define QR(a, b, c, d)                         \
    do {                                       \
        x[a] += x[b]; x[d] = rotl32(x[d] ^ x[a], 16); \
        x[c] += x[d]; x[b] = rotl32(x[b] ^ x[c], 12); \
        x[a] += x[b]; x[d] = rotl32(x[d] ^ x[a], 8);  \
        x[c] += x[d]; x[b] = rotl32(x[b] ^ x[c], 7);  \
    } while (0)

void cz_chacha_block(uint32_t out[16], const uint32_t key[8], const uint32_t w12_15[4],
                     unsigned rounds) {
    uint32_t in[16], x[16];
    in[0] = 0x61707865u; /* "expand 32-byte k" */
    in[1] = 0x3320646eu;
    in[2] = 0x79622d32u;
    in[3] = 0x6b206574u;
    for (int i = 0; i < 8; i++) in[4 + i] = key[i];
    for (int i = 0; i < 4; i++) in[12 + i] = w12_15[i];
    memcpy(x, in, sizeof x);
    for (unsigned r = 0; r < rounds; r += 2) {
        QR(0, 4, 8, 12);
        QR(1, 5, 9, 13);
        QR(2, 6, 10, 14);
        QR(3, 7, 11, 15);
        QR(0, 5, 10, 15);
        QR(1, 6, 11, 12);
        QR(2, 7, 8, 13);
        QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + in[i];
}

void cz_chacha_rng_init(cz_chacha_rng *r, const uint8_t seed[32], unsigned rounds) {
    for (int i = 0; i < 8; i++) r->key[i] = ld32(seed + 4 * i);
    r->counter = 0;
    r->idx = 16;
    r->rounds = rounds;
}

static void chacha_rng_refill(cz_chacha_rng *r) {
    /* rand_chacha: words 12–13 the 64-bit block counter, 14–15 the stream
     * (0 for from_seed). Its 4-block buffer is consecutive blocks, so a
     * block-at-a-time refill yields the same word stream. */
    const uint32_t w[4] = { (uint32_t)r->counter, (uint32_t)(r->counter >> 32), 0, 0 };
    cz_chacha_block(r->buf, r->key, w, r->rounds);
    r->counter++;
    r->idx = 0;
}

uint32_t cz_chacha_rng_next_u32(cz_chacha_rng *r) {
    if (r->idx >= 16) chacha_rng_refill(r);
    return r->buf[r->idx++];
}

uint64_t cz_chacha_rng_next_u64(cz_chacha_rng *r) {
    uint64_t lo = cz_chacha_rng_next_u32(r);
    uint64_t hi = cz_chacha_rng_next_u32(r);
    return lo | hi << 32;
}

void cz_chacha_rng_fill_bytes(cz_chacha_rng *r, uint8_t *out, size_t len) {
    while (len) {
        uint32_t w = cz_chacha_rng_next_u32(r);
        size_t n = len < 4 ? len : 4;
        for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(w >> (8 * i));
        out += n;
        len -= n;
    }
}

void cz_chacha20_ietf_init(cz_chacha20_ietf *c, const uint8_t key[32], const uint8_t nonce[12]) {
    for (int i = 0; i < 8; i++) c->key[i] = ld32(key + 4 * i);
    for (int i = 0; i < 3; i++) c->nonce[i] = ld32(nonce + 4 * i);
    c->pos = 0;
    c->block_no = UINT64_MAX;
}

void cz_chacha20_ietf_seek(cz_chacha20_ietf *c, uint64_t byte_pos) { c->pos = byte_pos; }

void cz_chacha20_ietf_apply(cz_chacha20_ietf *c, uint8_t *data, size_t len) {
    while (len) {
        uint64_t bno = c->pos / 64;
        if (bno != c->block_no) {
            uint32_t out[16];
            const uint32_t w[4] = { (uint32_t)bno, c->nonce[0], c->nonce[1], c->nonce[2] };
            cz_chacha_block(out, c->key, w, 20);
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 4; j++) c->block[4 * i + j] = (uint8_t)(out[i] >> (8 * j));
            c->block_no = bno;
        }
        size_t off = (size_t)(c->pos % 64);
        size_t n = 64 - off;
        if (n > len) n = len;
        for (size_t i = 0; i < n; i++) data[i] ^= c->block[off + i];
        data += n;
        len -= n;
        c->pos += n;
    }
}
