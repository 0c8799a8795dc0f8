/*
 * BLAKE2b/BLAKE2s against OpenSSL (unkeyed digests at every length
 * around the block boundaries, keyed MACs through EVP_MAC), ChaCha20
 * against RFC 8439 §2.3.2 / §2.4.2, and the rand_chacha word stream
 * against the RFC 7539 all-zero keystream.
 */
#include "filtest.h"

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <string.h>

#include "cuzk/fil_hash.h"

static void ossl_digest(const char *name, const uint8_t *in, size_t len, uint8_t *out, unsigned *outlen) {
    EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);
    assert_non_null(md);
    assert_int_equal(EVP_Digest(in, len, out, outlen, md, NULL), 1);
    EVP_MD_free(md);
}

static void ossl_mac(const char *name, const uint8_t *key, size_t keylen, size_t outlen,
                     const uint8_t *in, size_t len, uint8_t *out) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, name, NULL);
    assert_non_null(mac);
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    size_t sz = outlen;
    OSSL_PARAM params[] = { OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, &sz), OSSL_PARAM_END };
    assert_int_equal(EVP_MAC_init(ctx, key, keylen, params), 1);
    assert_int_equal(EVP_MAC_update(ctx, in, len), 1);
    size_t got = 0;
    assert_int_equal(EVP_MAC_final(ctx, out, &got, outlen), 1);
    assert_int_equal(got, outlen);
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
}

static void test_blake2b_vs_openssl(void **state) {
    (void)state;
    uint8_t buf[1100];
    cz_rng_bytes(buf, sizeof buf);
    for (size_t len = 0; len <= 1030; len += (len < 300 ? 1 : 37)) {
        uint8_t want[64], got[64];
        unsigned wl = 0;
        ossl_digest("BLAKE2B-512", buf, len, want, &wl);
        assert_int_equal(wl, 64);
        cz_blake2b_512(got, buf, len);
        assert_memory_equal(got, want, 64);
        /* the same through split updates */
        cz_blake2b_ctx c;
        assert_int_equal(cz_blake2b_init(&c, 64, NULL, 0), CZ_OK);
        size_t cut = len / 3;
        cz_blake2b_update(&c, buf, cut);
        cz_blake2b_update(&c, buf + cut, len - cut);
        cz_blake2b_final(&c, got);
        assert_memory_equal(got, want, 64);
    }
}

static void test_blake2b_keyed_vs_openssl(void **state) {
    (void)state;
    uint8_t buf[600], key[64];
    cz_rng_bytes(buf, sizeof buf);
    cz_rng_bytes(key, sizeof key);
    const size_t outlens[] = { 32, 64, 20 };
    const size_t keylens[] = { 1, 32, 42, 64 };
    for (size_t o = 0; o < 3; o++)
        for (size_t k = 0; k < 4; k++)
            for (size_t len = 0; len < 600; len += 61) {
                uint8_t want[64], got[64];
                ossl_mac("BLAKE2BMAC", key, keylens[k], outlens[o], buf, len, want);
                cz_blake2b_ctx c;
                assert_int_equal(cz_blake2b_init(&c, outlens[o], key, keylens[k]), CZ_OK);
                cz_blake2b_update(&c, buf, len);
                cz_blake2b_final(&c, got);
                assert_memory_equal(got, want, outlens[o]);
            }
    cz_blake2b_ctx c;
    assert_int_equal(cz_blake2b_init(&c, 0, NULL, 0), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_blake2b_init(&c, 65, NULL, 0), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_blake2b_init(&c, 32, key, 65), CZ_ERR_INVALID_ARG);
}

static void test_blake2s_vs_openssl(void **state) {
    (void)state;
    uint8_t buf[700], key[32];
    cz_rng_bytes(buf, sizeof buf);
    cz_rng_bytes(key, sizeof key);
    for (size_t len = 0; len <= 700; len += (len < 200 ? 1 : 29)) {
        uint8_t want[32], got[32];
        unsigned wl = 0;
        ossl_digest("BLAKE2S-256", buf, len, want, &wl);
        assert_int_equal(wl, 32);
        cz_blake2s_256(got, buf, len);
        assert_memory_equal(got, want, 32);
        ossl_mac("BLAKE2SMAC", key, 32, 32, buf, len, want);
        cz_blake2s_ctx c;
        assert_int_equal(cz_blake2s_init(&c, 32, key, 32), CZ_OK);
        cz_blake2s_update(&c, buf, len / 2);
        cz_blake2s_update(&c, buf + len / 2, len - len / 2);
        cz_blake2s_final(&c, got);
        assert_memory_equal(got, want, 32);
    }
}

/* RFC 8439 §2.3.2: the block function. */
static void test_chacha20_block_rfc8439(void **state) {
    (void)state;
    uint8_t kb[32];
    for (int i = 0; i < 32; i++) kb[i] = (uint8_t)i;
    uint32_t key[8];
    for (int i = 0; i < 8; i++)
        key[i] = (uint32_t)kb[4 * i] | (uint32_t)kb[4 * i + 1] << 8 | (uint32_t)kb[4 * i + 2] << 16 |
                 (uint32_t)kb[4 * i + 3] << 24;
    const uint32_t w[4] = { 1, 0x09000000u, 0x4a000000u, 0 };
    uint32_t out[16];
    cz_chacha_block(out, key, w, 20);
    const uint32_t want[16] = {
        0xe4e7f110u, 0x15593bd1u, 0x1fdd0f50u, 0xc47120a3u, 0xc7f4d1c7u, 0x0368c033u,
        0x9aaa2204u, 0x4e6cd4c3u, 0x466482d2u, 0x09aa9f07u, 0x05d7c214u, 0xa2028bd9u,
        0xd19c12b5u, 0xb94e16deu, 0xe883d0cbu, 0x4e3c50a2u,
    };
    assert_memory_equal(out, want, sizeof want);
}

/* RFC 8439 §2.4.2: encryption with counter 1, split at odd offsets; the
 * cipher starts at counter 0, so seek past the first block. */
static void test_chacha20_ietf_rfc8439(void **state) {
    (void)state;
    uint8_t key[32], nonce[12];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    fil_unhex(nonce, "000000000000004a00000000", sizeof nonce);
    const char *pt = "Ladies and Gentlemen of the class of '99: If I could offer you only one "
                     "tip for the future, sunscreen would be it.";
    uint8_t want[114];
    fil_unhex(want, "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
                  "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
                  "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
                  "5af90bbf74a35be6b40b8eedf2785e42874d", sizeof want);
    uint8_t buf[114];
    memcpy(buf, pt, 114);
    cz_chacha20_ietf c;
    cz_chacha20_ietf_init(&c, key, nonce);
    cz_chacha20_ietf_seek(&c, 64);
    cz_chacha20_ietf_apply(&c, buf, 7);
    cz_chacha20_ietf_apply(&c, buf + 7, 60);
    cz_chacha20_ietf_apply(&c, buf + 67, 47);
    assert_memory_equal(buf, want, 114);
}

/* rand_chacha ChaCha20Rng::from_seed([0; 32]) yields the RFC 7539 §A.1
 * all-zero keystream (counter and stream words zero): words 0xade0b876,
 * 0x903df1a0, ... and, block 1 (bytes 9f 07 e7 be), 0xbee7079f ... ; next_u64 pairs them low
 * word first. ChaCha8 differs only in the round count (its answers are in
 * the graph tests, from rust-fil-proofs' parents). */
static void test_chacha_rng_stream(void **state) {
    (void)state;
    uint8_t seed[32] = { 0 };
    cz_chacha_rng r;
    cz_chacha_rng_init(&r, seed, 20);
    assert_int_equal(cz_chacha_rng_next_u32(&r), 0xade0b876u);
    assert_int_equal(cz_chacha_rng_next_u64(&r), 0xe56a5d40903df1a0ull);
    for (int i = 3; i < 16; i++) (void)cz_chacha_rng_next_u32(&r);
    assert_int_equal(cz_chacha_rng_next_u32(&r), 0xbee7079fu);
    /* fill_bytes: keystream bytes in order, unused tail of a word dropped */
    cz_chacha_rng_init(&r, seed, 20);
    uint8_t b[6];
    cz_chacha_rng_fill_bytes(&r, b, 6);
    const uint8_t wantb[6] = { 0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1 };
    assert_memory_equal(b, wantb, 6);
    assert_int_equal(cz_chacha_rng_next_u32(&r), 0xe56a5d40u);
}

int main(void) {
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blake2b_vs_openssl),
        cmocka_unit_test(test_blake2b_keyed_vs_openssl),
        cmocka_unit_test(test_blake2s_vs_openssl),
        cmocka_unit_test(test_chacha20_block_rfc8439),
        cmocka_unit_test(test_chacha20_ietf_rfc8439),
        cmocka_unit_test(test_chacha_rng_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
