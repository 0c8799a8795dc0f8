/*
 * SHA-256 (FIPS 180-4): the native implementation and the circuit gadget
 * (include/cuzk/sha256.h).
 *
 * Gadget layout per compression: the 48 schedule words first (scope
 * "schedule[t]"), then the 64 rounds ("round[t]"), then the feed-forward
 * ("final"). Per round, T1 is never materialised: new_e = d + h + Σ1 + Ch +
 * K + W and new_a = h + Σ1 + Ch + K + W + Σ0 + Maj are each one multi-word
 * sum with a single range decomposition (35 bits), which is cheaper than
 * materialising T1 and adding twice.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/sha256.h"

const uint32_t CZ_SHA256_IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

const uint32_t CZ_SHA256_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/* ---- native ---------------------------------------------------------------- */
/* Two compression paths: the portable one, and on x86-64 CPUs with the SHA
 * extensions one built on sha256rnds2 / sha256msg1 / sha256msg2 (SDR
 * labelling, which is SHA-256 bound, runs about 5x faster with it). The choice is made once, from
 * CPUID, and CUZK_NO_SIMD (any value) forces the portable path as it does
 * for the field backends. */
static inline uint32_t rotr(uint32_t x, unsigned k) { return (x >> k) | (x << (32 - k)); }

static void compress_portable(uint32_t st[8], const uint8_t *blk, size_t nblocks)
{
    for (; nblocks; nblocks--, blk += 64) {
        uint32_t w[64];
        for (int t = 0; t < 16; t++)
            w[t] = (uint32_t)blk[4 * t] << 24 | (uint32_t)blk[4 * t + 1] << 16 |
                   (uint32_t)blk[4 * t + 2] << 8 | blk[4 * t + 3];
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
        for (int t = 0; t < 64; t++) {
            uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
            uint32_t ch = (e & f) ^ (~e & g);
            uint32_t t1 = h + S1 + ch + CZ_SHA256_K[t] + w[t];
            uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
            uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
            uint32_t t2 = S0 + mj;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        st[0] += a;
        st[1] += b;
        st[2] += c;
        st[3] += d;
        st[4] += e;
        st[5] += f;
        st[6] += g;
        st[7] += h;
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CZ_SHA256_HAVE_SHANI 1
#include <cpuid.h>
#include <immintrin.h>

/* The SHA extensions keep the state as two vectors, ABEF and CDGH (A in
 * the top lane), and do two rounds per sha256rnds2 with W+K of those rounds
 * in the low two lanes of its third operand. Message words are loaded
 * big-endian (byte shuffle) four at a time; W[t..t+3] for t >= 16 is
 * msg2(msg1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..t-1]). */
__attribute__((target("sha,sse4.1"))) static void compress_shani(uint32_t st[8], const uint8_t *blk,
                                                                  size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)(const void *)st);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)(const void *)(st + 4));
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; nblocks; nblocks--, blk += 64) {
        __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i w[4];
        for (int i = 0; i < 16; i++) {
            __m128i m;
            if (i < 4) {
                m = _mm_loadu_si128((const __m128i *)(const void *)(blk + 16 * i));
                m = _mm_shuffle_epi8(m, bswap);
            } else {
                /* w[i & 3] holds W of group i − 4, the others i − 3 .. i − 1 */
                __m128i x = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(x, w[(i + 3) & 3]);
            }
            w[i & 3] = m;
            __m128i k = _mm_loadu_si128((const __m128i *)(const void *)(CZ_SHA256_K + 4 * i));
            __m128i wk = _mm_add_epi32(m, k);
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            wk = _mm_shuffle_epi32(wk, 0x0E);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    hgfe = _mm_alignr_epi8(dchg, feba, 8);
    _mm_storeu_si128((__m128i *)(void *)st, dcba);
    _mm_storeu_si128((__m128i *)(void *)(st + 4), hgfe);
}

static bool cpu_has_shani(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    bool ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return ssse3 && sse41 && ((b >> 29) & 1); /* CPUID.7.0:EBX.SHA[bit 29] */
}
#endif

bool cz_sha256_shani_supported(void)
{
#ifdef CZ_SHA256_HAVE_SHANI
    if (getenv("CUZK_NO_SIMD"))
        return false;
    return cpu_has_shani();
#else
    return false;
#endif
}

/* -1: not chosen yet; racing first calls all store the same value */
static int sha256_impl_choice = -1;

cz_sha256_impl cz_sha256_active_impl(void)
{
    int v = __atomic_load_n(&sha256_impl_choice, __ATOMIC_RELAXED);
    if (v < 0) {
        v = cz_sha256_shani_supported() ? CZ_SHA256_IMPL_SHANI : CZ_SHA256_IMPL_PORTABLE;
        __atomic_store_n(&sha256_impl_choice, v, __ATOMIC_RELAXED);
    }
    return (cz_sha256_impl)v;
}

const char *cz_sha256_impl_name(cz_sha256_impl impl)
{
    switch (impl) {
    case CZ_SHA256_IMPL_PORTABLE:
        return "portable";
    case CZ_SHA256_IMPL_SHANI:
        return "sha-ni";
    }
    return "unknown";
}

cz_status cz_sha256_compress_blocks_with(cz_sha256_impl impl, uint32_t state[8], const uint8_t *blocks,
                                         size_t nblocks)
{
    switch (impl) {
    case CZ_SHA256_IMPL_PORTABLE:
        compress_portable(state, blocks, nblocks);
        return CZ_OK;
    case CZ_SHA256_IMPL_SHANI:
#ifdef CZ_SHA256_HAVE_SHANI
        if (!cz_sha256_shani_supported())
            return CZ_ERR_UNSUPPORTED;
        compress_shani(state, blocks, nblocks);
        return CZ_OK;
#else
        return CZ_ERR_UNSUPPORTED;
#endif
    }
    return CZ_ERR_INVALID_ARG;
}

void cz_sha256_compress_blocks(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
#ifdef CZ_SHA256_HAVE_SHANI
    if (cz_sha256_active_impl() == CZ_SHA256_IMPL_SHANI) {
        compress_shani(state, blocks, nblocks);
        return;
    }
#endif
    compress_portable(state, blocks, nblocks);
}

void cz_sha256_compress(uint32_t st[8], const uint8_t blk[64]) { cz_sha256_compress_blocks(st, blk, 1); }

void cz_sha256_init(cz_sha256_ctx *c)
{
    memcpy(c->h, CZ_SHA256_IV, sizeof c->h);
    c->len = 0;
    c->nbuf = 0;
}

void cz_sha256_update(cz_sha256_ctx *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    c->len += len;
    if (c->nbuf) {
        size_t take = 64 - c->nbuf < len ? 64 - c->nbuf : len;
        memcpy(c->buf + c->nbuf, p, take);
        c->nbuf += take;
        p += take;
        len -= take;
        if (c->nbuf < 64)
            return;
        cz_sha256_compress(c->h, c->buf);
        c->nbuf = 0;
    }
    if (len >= 64) {
        cz_sha256_compress_blocks(c->h, p, len / 64);
        p += len & ~(size_t)63;
        len &= 63;
    }
    memcpy(c->buf, p, len);
    c->nbuf = len;
}

void cz_sha256_final(cz_sha256_ctx *c, uint8_t out[32])
{
    uint64_t bits = c->len * 8;
    uint8_t pad[72] = {0x80};
    size_t padlen = (c->nbuf < 56 ? 56 : 120) - c->nbuf;
    for (int i = 0; i < 8; i++)
        pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    cz_sha256_update(c, pad, padlen + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
    memset(c, 0, sizeof *c);
}

void cz_sha256(uint8_t out[32], const void *data, size_t len)
{
    cz_sha256_ctx c;
    cz_sha256_init(&c);
    cz_sha256_update(&c, data, len);
    cz_sha256_final(&c, out);
}

/* ---- gadget ------------------------------------------------------------------ */
void cz_sha256_iv_gadget(cz_u32 state[8])
{
    for (int i = 0; i < 8; i++)
        cz_u32_const(&state[i], CZ_SHA256_IV[i]);
}

void cz_sha256_state_to_bits(cz_bit out[256], const cz_u32 state[8])
{
    for (int i = 0; i < 8; i++)
        cz_u32_to_bits_be(out + 32 * i, &state[i]);
}

static void xor3_rot(cz_cs *cs, cz_u32 *out, const cz_u32 *x, unsigned r1, unsigned r2, unsigned r3, bool shr3,
                     const char *name)
{
    cz_u32 p, q, s;
    cz_u32_rotr(&p, x, r1);
    cz_u32_rotr(&q, x, r2);
    if (shr3)
        cz_u32_shr(&s, x, r3);
    else
        cz_u32_rotr(&s, x, r3);
    cz_cs_push_scope(cs, "%s", name);
    cz_u32_xor3(cs, out, &p, &q, &s);
    cz_cs_pop_scope(cs);
}

void cz_sha256_compress_gadget(cz_cs *cs, cz_u32 state_out[8], const cz_u32 state_in[8], const cz_bit block[512])
{
    cz_u32 *w = malloc(64 * sizeof(cz_u32));
    if (!w) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "sha256: out of memory for the message schedule");
        for (int i = 0; i < 8; i++)
            state_out[i] = state_in[i];
        return;
    }
    for (int t = 0; t < 16; t++)
        cz_u32_from_bits_be(&w[t], block + 32 * t);
    for (int t = 16; t < 64; t++) {
        cz_u32 s0, s1;
        cz_cs_push_scope(cs, "schedule[%d]", t);
        xor3_rot(cs, &s0, &w[t - 15], 7, 18, 3, true, "s0");
        xor3_rot(cs, &s1, &w[t - 2], 17, 19, 10, true, "s1");
        const cz_u32 *ops[4] = {&w[t - 16], &s0, &w[t - 7], &s1};
        cz_cs_push_scope(cs, "add");
        cz_u32_add_many(cs, &w[t], ops, 4);
        cz_cs_pop_scope(cs);
        cz_cs_pop_scope(cs);
    }
    cz_u32 v[8];
    memcpy(v, state_in, sizeof v);
    for (int t = 0; t < 64; t++) {
        /* v = a b c d e f g h */
        cz_u32 S1, ch, S0, mj, k, ne, na;
        cz_cs_push_scope(cs, "round[%d]", t);
        xor3_rot(cs, &S1, &v[4], 6, 11, 25, false, "S1");
        cz_cs_push_scope(cs, "ch");
        cz_u32_ch(cs, &ch, &v[4], &v[5], &v[6]);
        cz_cs_pop_scope(cs);
        xor3_rot(cs, &S0, &v[0], 2, 13, 22, false, "S0");
        cz_cs_push_scope(cs, "maj");
        cz_u32_maj(cs, &mj, &v[0], &v[1], &v[2]);
        cz_cs_pop_scope(cs);
        cz_u32_const(&k, CZ_SHA256_K[t]);
        const cz_u32 *oe[6] = {&v[3], &v[7], &S1, &ch, &k, &w[t]};
        cz_cs_push_scope(cs, "new_e");
        cz_u32_add_many(cs, &ne, oe, 6);
        cz_cs_pop_scope(cs);
        const cz_u32 *oa[7] = {&v[7], &S1, &ch, &k, &w[t], &S0, &mj};
        cz_cs_push_scope(cs, "new_a");
        cz_u32_add_many(cs, &na, oa, 7);
        cz_cs_pop_scope(cs);
        memmove(&v[1], &v[0], 7 * sizeof(cz_u32));
        v[0] = na;
        v[4] = ne;
        cz_cs_pop_scope(cs);
    }
    cz_cs_push_scope(cs, "final");
    cz_u32 out[8];
    for (int i = 0; i < 8; i++)
        cz_u32_add(cs, &out[i], &state_in[i], &v[i]);
    cz_cs_pop_scope(cs);
    memcpy(state_out, out, sizeof out);
    free(w);
}

void cz_sha256_gadget(cz_cs *cs, cz_bit out[256], const cz_bit *msg, size_t nbits)
{
    size_t nblk = cz_sha256_blocks(nbits);
    cz_bit *pad = malloc(nblk * 512 * sizeof(cz_bit));
    if (!pad) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "sha256: out of memory for the padded message");
        for (int i = 0; i < 256; i++)
            out[i] = cz_bit_const(false);
        return;
    }
    if (nbits)
        memcpy(pad, msg, nbits * sizeof(cz_bit));
    /* 1, zeros, 64-bit big-endian bit length: all constants */
    size_t total = nblk * 512;
    pad[nbits] = cz_bit_const(true);
    for (size_t i = nbits + 1; i < total - 64; i++)
        pad[i] = cz_bit_const(false);
    uint64_t len = (uint64_t)nbits;
    for (unsigned i = 0; i < 64; i++)
        pad[total - 64 + i] = cz_bit_const((len >> (63 - i)) & 1);
    cz_u32 st[8];
    cz_sha256_iv_gadget(st);
    cz_cs_push_scope(cs, "sha256");
    for (size_t b = 0; b < nblk; b++) {
        cz_cs_push_scope(cs, "block[%zu]", b);
        cz_sha256_compress_gadget(cs, st, st, pad + 512 * b);
        cz_cs_pop_scope(cs);
    }
    cz_cs_pop_scope(cs);
    cz_sha256_state_to_bits(out, st);
    free(pad);
}
