/*
 * SHA-256 tests.
 *  - native cz_sha256 equals OpenSSL on every length 0..300 (random
 *    content) and with random incremental chunking;
 *  - the SHA-NI compression equals the portable one on random states and
 *    blocks (single and multi-block; skipped without SHA-NI);
 *  - the gadget equals OpenSSL on random messages of 0, 1, 55, 56, 63, 64,
 *    65, 119, 120, 128 bytes: digest read from the checker's assignment (not
 *    from the gadget's value fields), and every constraint satisfied;
 *  - constraint counts: one compression with variable state and block
 *    (asserted <= 26,000 and printed), the IV-constant first block, the
 *    recorded matrices satisfied by the recorded witness;
 *  - the witness generator's assignment equals the recorder's, byte for byte;
 *  - flipping a message bit in the witness makes the circuit unsatisfied
 *    exactly at the first constraint that reads it, named by scope, and the
 *    matrices' first bad row agrees with the checker.
 */
#include "testutil.h"
#include "cuzk/sha256.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_native(void **state)
{
    (void)state;
    uint8_t msg[4096], a[32], b[32];
    cz_rng_bytes(msg, sizeof msg);
    for (size_t len = 0; len <= 300; len++) {
        cz_sha256(a, msg, len);
        SHA256(msg, len, b);
        assert_memory_equal(a, b, 32);
    }
    for (int it = 0; it < 50; it++) {
        size_t len = cz_rng_u64() % sizeof msg;
        cz_sha256_ctx c;
        cz_sha256_init(&c);
        for (size_t off = 0; off < len;) {
            size_t k = cz_rng_u64() % 150;
            if (k > len - off)
                k = len - off;
            cz_sha256_update(&c, msg + off, k);
            off += k;
        }
        cz_sha256_final(&c, a);
        SHA256(msg, len, b);
        assert_memory_equal(a, b, 32);
    }
    /* compression function alone: FIPS 180-4 "abc" single block */
    uint8_t blk[64] = {'a', 'b', 'c', 0x80};
    blk[63] = 24;
    uint32_t st[8];
    memcpy(st, CZ_SHA256_IV, sizeof st);
    cz_sha256_compress(st, blk);
    SHA256((const uint8_t *)"abc", 3, b);
    for (int i = 0; i < 8; i++)
        assert_int_equal(st[i], (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
                                    (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3]);
}

/* value of a bit as assigned in the cs (not the gadget's value field) */
static unsigned assigned(const cz_cs *cs, const cz_bit *b)
{
    if (b->kind == CZ_BIT_CONST)
        return b->value;
    cz_fr v;
    cz_cs_value(cs, b->var, &v);
    unsigned x = cz_fr_is_one(&v) ? 1 : cz_fr_is_zero(&v) ? 0 : 2;
    return b->kind == CZ_BIT_NOT ? (x == 2 ? 2 : 1 - x) : x;
}

typedef struct {
    const uint8_t *msg;
    size_t len;
    uint8_t *digest; /* out: from the assignment */
    int bad_bits;    /* out: assignment bits that were not 0/1 */
} hash_ctx;

static cz_status hash_synth(cz_cs *cs, const void *vctx)
{
    const hash_ctx *ctx = vctx;
    cz_bit *bits = malloc((8 * ctx->len + 1) * sizeof(cz_bit));
    if (!bits)
        return CZ_ERR_NOMEM;
    cz_bits_alloc_bytes(cs, bits, ctx->msg, ctx->len);
    cz_bit out[256];
    cz_sha256_gadget(cs, out, bits, 8 * ctx->len);
    if (ctx->digest && cz_cs_has_values(cs)) {
        hash_ctx *m = (hash_ctx *)ctx;
        memset(m->digest, 0, 32);
        for (int i = 0; i < 256; i++) {
            unsigned v = assigned(cs, &out[i]);
            if (v > 1)
                m->bad_bits++;
            m->digest[i / 8] |= (uint8_t)((v & 1) << (7 - i % 8));
        }
    }
    free(bits);
    return CZ_OK;
}

/* SHA-NI compression == portable compression: random states and blocks,
 * one block at a time and in multi-block runs of 1..40 blocks; the
 * dispatched cz_sha256_compress_blocks agrees too. Skipped (with a
 * message) on a CPU without the SHA extensions or under CUZK_NO_SIMD. */
static void test_shani_vs_portable(void **state)
{
    (void)state;
    printf("sha256 native path: %s\n", cz_sha256_impl_name(cz_sha256_active_impl()));
    if (!cz_sha256_shani_supported()) {
        assert_int_equal(cz_sha256_active_impl(), CZ_SHA256_IMPL_PORTABLE);
        uint32_t st[8] = {0};
        uint8_t blk[64] = {0};
        assert_int_equal(cz_sha256_compress_blocks_with(CZ_SHA256_IMPL_SHANI, st, blk, 1),
                         CZ_ERR_UNSUPPORTED);
        print_message("SKIP: no SHA-NI on this CPU (or CUZK_NO_SIMD set)\n");
        skip();
    }
    assert_int_equal(cz_sha256_active_impl(), CZ_SHA256_IMPL_SHANI);
    static uint8_t buf[64 * 40];
    for (int it = 0; it < 20000; it++) {
        uint32_t a[8], b[8], c[8];
        size_t n = it < 10000 ? 1 : 1 + cz_rng_u64() % 40;
        cz_rng_bytes(a, sizeof a);
        cz_rng_bytes(buf, 64 * n);
        memcpy(b, a, sizeof a);
        memcpy(c, a, sizeof a);
        assert_int_equal(cz_sha256_compress_blocks_with(CZ_SHA256_IMPL_PORTABLE, a, buf, n), CZ_OK);
        assert_int_equal(cz_sha256_compress_blocks_with(CZ_SHA256_IMPL_SHANI, b, buf, n), CZ_OK);
        cz_sha256_compress_blocks(c, buf, n);
        assert_memory_equal(a, b, sizeof a);
        assert_memory_equal(a, c, sizeof a);
    }
    /* extreme blocks: all zero / all ones, from the IV */
    for (int v = 0; v < 2; v++) {
        uint32_t a[8], b[8];
        memset(buf, v ? 0xff : 0, 64);
        memcpy(a, CZ_SHA256_IV, sizeof a);
        memcpy(b, CZ_SHA256_IV, sizeof b);
        assert_int_equal(cz_sha256_compress_blocks_with(CZ_SHA256_IMPL_PORTABLE, a, buf, 1), CZ_OK);
        assert_int_equal(cz_sha256_compress_blocks_with(CZ_SHA256_IMPL_SHANI, b, buf, 1), CZ_OK);
        assert_memory_equal(a, b, sizeof a);
    }
    /* zero blocks leave the state alone */
    uint32_t z[8], z0[8];
    cz_rng_bytes(z, sizeof z);
    memcpy(z0, z, sizeof z);
    assert_int_equal(cz_sha256_compress_blocks_with(CZ_SHA256_IMPL_SHANI, z, buf, 0), CZ_OK);
    assert_memory_equal(z, z0, sizeof z);
    assert_int_equal(cz_sha256_compress_blocks_with((cz_sha256_impl)7, z, buf, 1), CZ_ERR_INVALID_ARG);
}

static void test_gadget_vs_openssl(void **state)
{
    (void)state;
    static const size_t lens[] = {0, 1, 55, 56, 63, 64, 65, 119, 120, 128};
    uint8_t msg[128], want[32], got[32];
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        cz_rng_bytes(msg, sizeof msg);
        hash_ctx ctx = {msg, lens[i], got, 0};
        cz_check_report rep;
        cz_status st = cz_cs_check(hash_synth, &ctx, &rep);
        if (st != CZ_OK)
            fail_msg("len %zu: %s at %s", lens[i], cz_status_str(st), rep.where);
        SHA256(msg, lens[i], want);
        assert_int_equal(ctx.bad_bits, 0);
        assert_memory_equal(got, want, 32);
        fprintf(stderr, "sha256 gadget, %3zu bytes (%zu blocks): %zu constraints, %zu aux\n", lens[i],
                cz_sha256_blocks(8 * lens[i]), rep.n_constraints, rep.n_aux);
    }
}

typedef struct {
    uint32_t state[8];
    uint8_t block[64];
    uint32_t out[8]; /* out: from the gadget words' assignment */
} compress_ctx;

static cz_status compress_synth(cz_cs *cs, const void *vctx)
{
    compress_ctx *ctx = (compress_ctx *)vctx;
    cz_u32 st[8];
    cz_bit blk[512];
    for (int i = 0; i < 8; i++)
        cz_u32_alloc(cs, &st[i], ctx->state[i]);
    cz_bits_alloc_bytes(cs, blk, ctx->block, 64);
    cz_sha256_compress_gadget(cs, st, st, blk);
    for (int i = 0; i < 8; i++) {
        uint32_t v = 0;
        for (int k = 0; k < 32; k++)
            v |= (uint32_t)(assigned(cs, &st[i].b[k]) & 1) << k;
        ctx->out[i] = v;
    }
    return CZ_OK;
}

static void test_counts(void **state)
{
    (void)state;
    compress_ctx ctx;
    for (int i = 0; i < 8; i++)
        ctx.state[i] = (uint32_t)cz_rng_u64();
    cz_rng_bytes(ctx.block, 64);
    cz_pce *p = NULL;
    cz_witness w;
    assert_int_equal(cz_pce_record(&p, compress_synth, &ctx, &w), CZ_OK);
    size_t per = (size_t)p->n_circuit_constraints - 256 - 512; /* minus the input booleans */
    fprintf(stderr,
            "sha256 compression (variable state and block): %zu constraints, %llu aux "
            "(incl. 768 input bits); nnz A/B/C = %llu/%llu/%llu; %u distinct coefficients\n",
            per, (unsigned long long)p->n_aux, (unsigned long long)p->a.nnz, (unsigned long long)p->b.nnz,
            (unsigned long long)p->c.nnz, p->n_coeffs);
    assert_true(per <= 26000);
    assert_int_equal(per, 17824); /* the count documented in sha256.h */
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_OK);
    uint32_t nat[8];
    memcpy(nat, ctx.state, sizeof nat);
    cz_sha256_compress(nat, ctx.block);
    assert_memory_equal(ctx.out, nat, sizeof nat);
    cz_witness_free(&w);
    cz_pce_free(p);

    /* first block with the IV: constants fold */
    uint8_t msg[55];
    cz_rng_bytes(msg, sizeof msg);
    hash_ctx h = {msg, 55, NULL, 0};
    assert_int_equal(cz_pce_record(&p, hash_synth, &h, NULL), CZ_OK);
    fprintf(stderr, "sha256 one block from the IV (55-byte message): %llu constraints (minus 440 message bits)\n",
            (unsigned long long)(p->n_circuit_constraints - 440));
    assert_true(p->n_circuit_constraints - 440 <= per);
    cz_pce_free(p);
}

static int lowest_s0_bit(int pos)
{
    /* s0 = rotr7 ^ rotr18 ^ shr3 of W[1]: output bit i reads input bits
     * (i+7)%32, (i+18)%32 and i+3 (if < 32) */
    for (int i = 0; i < 32; i++)
        if ((i + 7) % 32 == pos || (i + 18) % 32 == pos || i + 3 == pos)
            return i;
    return -1;
}

/* The witness generator (bulk word paths, no LCs) must produce exactly the
 * assignment the recorder computes with values (per-bit paths), for
 * messages whose constant padding exercises every folding case. */
static void test_witness_equals_recording(void **state)
{
    (void)state;
    static const size_t lens[] = {0, 3, 55, 56, 64, 100};
    uint8_t msg[128];
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        cz_rng_bytes(msg, sizeof msg);
        hash_ctx ctx = {msg, lens[i], NULL, 0};
        cz_pce *p = NULL;
        cz_witness wr, ww;
        assert_int_equal(cz_pce_record(&p, hash_synth, &ctx, &wr), CZ_OK);
        assert_int_equal(cz_witness_generate(&ww, hash_synth, &ctx, p), CZ_OK);
        assert_int_equal(ww.n_aux, wr.n_aux);
        assert_int_equal(ww.n_inputs, wr.n_inputs);
        assert_int_equal(ww.n_constraints, p->n_constraints);
        assert_memory_equal(ww.aux, wr.aux, wr.n_aux * sizeof(cz_fr));
        assert_memory_equal(ww.inputs, wr.inputs, wr.n_inputs * sizeof(cz_fr));
        uint64_t row;
        assert_int_equal(cz_pce_is_satisfied(p, &ww, &row), CZ_OK);
        cz_witness_free(&wr);
        cz_witness_free(&ww);
        cz_pce_free(p);
    }
    compress_ctx cc;
    for (int i = 0; i < 8; i++)
        cc.state[i] = (uint32_t)cz_rng_u64();
    cz_rng_bytes(cc.block, 64);
    cz_pce *p = NULL;
    cz_witness wr, ww;
    assert_int_equal(cz_pce_record(&p, compress_synth, &cc, &wr), CZ_OK);
    assert_int_equal(cz_witness_generate(&ww, compress_synth, &cc, p), CZ_OK);
    assert_int_equal(ww.n_aux, wr.n_aux);
    assert_memory_equal(ww.aux, wr.aux, wr.n_aux * sizeof(cz_fr));
    cz_witness_free(&wr);
    cz_witness_free(&ww);
    cz_pce_free(p);
}

static void test_flip(void **state)
{
    (void)state;
    uint8_t msg[8];
    cz_rng_bytes(msg, sizeof msg);
    hash_ctx ctx = {msg, sizeof msg, NULL, 0};
    cz_pce *p = NULL;
    cz_witness w;
    assert_int_equal(cz_pce_record(&p, hash_synth, &ctx, &w), CZ_OK);
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_OK);
    cz_check_report rep;
    assert_int_equal(cz_cs_check_witness(hash_synth, &ctx, &w, &rep), CZ_OK);
    /* message bits are aux 0..63, MSB-first per byte */
    for (int k = 0; k < 4; k++) {
        int idx = (int)(cz_rng_u64() % 64);
        cz_fr saved = w.aux[idx];
        cz_fr_sub(&w.aux[idx], &CZ_FR_ONE, &w.aux[idx]); /* 0 <-> 1: still boolean */
        assert_int_equal(cz_cs_check_witness(hash_synth, &ctx, &w, &rep), CZ_ERR_UNSATISFIED);
        char want[128];
        if (idx < 32) {
            snprintf(want, sizeof want, "sha256/block[0]/schedule[16]/add/sum");
        } else {
            int pos = 31 - (idx - 32); /* LSB-first position within W[1] */
            snprintf(want, sizeof want, "sha256/block[0]/schedule[16]/s0/bit[%d]/xor3", lowest_s0_bit(pos));
        }
        assert_string_equal(rep.where, want);
        assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_ERR_UNSATISFIED);
        assert_int_equal(row, rep.first_failure);
        w.aux[idx] = saved;
    }
    /* any other aux variable flipped: unsatisfied, and the two agree */
    for (int k = 0; k < 20; k++) {
        size_t idx = 64 + cz_rng_u64() % (w.n_aux - 64);
        cz_fr saved = w.aux[idx];
        cz_fr_sub(&w.aux[idx], &CZ_FR_ONE, &w.aux[idx]);
        assert_int_equal(cz_cs_check_witness(hash_synth, &ctx, &w, &rep), CZ_ERR_UNSATISFIED);
        assert_non_null(strstr(rep.where, "sha256/block[0]/"));
        assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_ERR_UNSATISFIED);
        assert_int_equal(row, rep.first_failure);
        w.aux[idx] = saved;
    }
    cz_witness_free(&w);
    cz_pce_free(p);
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native),
        cmocka_unit_test(test_shani_vs_portable),
        cmocka_unit_test(test_gadget_vs_openssl),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_witness_equals_recording),
        cmocka_unit_test(test_flip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
