/*
 * Point encodings (zcash / Filecoin, docs/design.md §3.1):
 *  - the 4 × 1000 vectors of k·G (tests/vectors/bls12_381) decode, equal
 *    k·G computed by the library, and re-encode to the same bytes;
 *  - every class of invalid input is refused with its own status;
 *  - known answers from @noble/curves (tests/vectors/noble_ec.json, made by
 *    tools/gen-noble-ec-vectors.mjs): scalar multiples, sums, cofactor
 *    clearing of points outside the subgroup.
 */
#include <stdlib.h>
#include "ec_test_util.h"

/* p, big-endian. */
static void p_be(uint8_t out[48])
{
    for (int i = 0; i < 48; i++) out[i] = (uint8_t)(CZ_FP_MODULUS[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
}

/* ---- vectors k·G, k = 0..999 --------------------------------------------- */

static void g1_vectors(void **state)
{
    (void)state;
    size_t lc, lu;
    uint8_t *vc = cz_read_file(cz_vector_path("bls12_381/g1_compressed_multiples.bin"), &lc);
    uint8_t *vu = cz_read_file(cz_vector_path("bls12_381/g1_uncompressed_multiples.bin"), &lu);
    assert_int_equal(lc, 1000 * 48);
    assert_int_equal(lu, 1000 * 96);
    cz_g1_jac g, acc, t;
    cz_g1_generator_jac(&g);
    cz_g1_jac_set_infinity(&acc);
    for (uint64_t k = 0; k < 1000; k++) {
        {
            cz_g1_affine a, b, ref;
            uint8_t buf[96];
            assert_int_equal(cz_g1_uncompress(&a, vc + 48 * k), CZ_OK);
            assert_int_equal(cz_g1_deserialize(&b, vu + 96 * k), CZ_OK);
            cz_g1_jac_to_affine(&ref, &acc);
            assert_true(cz_g1_affine_eq(&a, &ref));
            assert_true(cz_g1_affine_eq(&b, &ref));
            assert_int_equal(cz_g1_deserialize_unchecked(&b, vu + 96 * k), CZ_OK);
            assert_true(cz_g1_affine_eq(&b, &ref));
            cz_g1_compress(buf, &ref);
            assert_memory_equal(buf, vc + 48 * k, 48);
            cz_g1_serialize(buf, &ref);
            assert_memory_equal(buf, vu + 96 * k, 96);
            if (k % 97 == 3) { /* scalar multiplication agrees with the vector */
                cz_scalar s = {{k, 0, 0, 0}};
                cz_g1_jac_mul_ct(&t, &g, &s);
                assert_true(cz_g1_jac_eq(&t, &acc));
                cz_g1_jac_mul_var(&t, &g, &k, 1);
                assert_true(cz_g1_jac_eq(&t, &acc));
            }
        }
        cz_g1_jac_add(&acc, &acc, &g);
    }
    free(vc);
    free(vu);
}

static void g2_vectors(void **state)
{
    (void)state;
    size_t lc, lu;
    uint8_t *vc = cz_read_file(cz_vector_path("bls12_381/g2_compressed_multiples.bin"), &lc);
    uint8_t *vu = cz_read_file(cz_vector_path("bls12_381/g2_uncompressed_multiples.bin"), &lu);
    assert_int_equal(lc, 1000 * 96);
    assert_int_equal(lu, 1000 * 192);
    cz_g2_jac g, acc, t;
    cz_g2_generator_jac(&g);
    cz_g2_jac_set_infinity(&acc);
    for (uint64_t k = 0; k < 1000; k++) {
        {
            cz_g2_affine a, b, ref;
            uint8_t buf[192];
            assert_int_equal(cz_g2_uncompress(&a, vc + 96 * k), CZ_OK);
            assert_int_equal(cz_g2_deserialize(&b, vu + 192 * k), CZ_OK);
            cz_g2_jac_to_affine(&ref, &acc);
            assert_true(cz_g2_affine_eq(&a, &ref));
            assert_true(cz_g2_affine_eq(&b, &ref));
            assert_int_equal(cz_g2_deserialize_unchecked(&b, vu + 192 * k), CZ_OK);
            assert_true(cz_g2_affine_eq(&b, &ref));
            cz_g2_compress(buf, &ref);
            assert_memory_equal(buf, vc + 96 * k, 96);
            cz_g2_serialize(buf, &ref);
            assert_memory_equal(buf, vu + 192 * k, 192);
            if (k % 97 == 3) {
                cz_scalar s = {{k, 0, 0, 0}};
                cz_g2_jac_mul_ct(&t, &g, &s);
                assert_true(cz_g2_jac_eq(&t, &acc));
                cz_g2_jac_mul_var(&t, &g, &k, 1);
                assert_true(cz_g2_jac_eq(&t, &acc));
            }
        }
        cz_g2_jac_add(&acc, &acc, &g);
    }
    free(vc);
    free(vu);
}

/* ---- invalid encodings ------------------------------------------------------ */

/* A valid encoding of 5·G in each of the four formats. */
static void valid_g1(uint8_t c[48], uint8_t u[96])
{
    cz_g1_jac g;
    cz_g1_affine a;
    uint64_t k = 5;
    cz_g1_generator_jac(&g);
    cz_g1_jac_mul_var(&g, &g, &k, 1);
    cz_g1_jac_to_affine(&a, &g);
    cz_g1_compress(c, &a);
    cz_g1_serialize(u, &a);
}

static void valid_g2(uint8_t c[96], uint8_t u[192])
{
    cz_g2_jac g;
    cz_g2_affine a;
    uint64_t k = 5;
    cz_g2_generator_jac(&g);
    cz_g2_jac_mul_var(&g, &g, &k, 1);
    cz_g2_jac_to_affine(&a, &g);
    cz_g2_compress(c, &a);
    cz_g2_serialize(u, &a);
}

static void g1_invalid(void **state)
{
    (void)state;
    uint8_t c[48], u[96], t[96], pb[48];
    cz_g1_affine r;
    valid_g1(c, u);
    p_be(pb);
    assert_int_equal(cz_g1_uncompress(&r, c), CZ_OK);
    assert_int_equal(cz_g1_deserialize(&r, u), CZ_OK);

    /* flags */
    memcpy(t, c, 48); t[0] &= 0x7f;                       /* compressed bit clear */
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_ENCODING_FLAGS);
    memcpy(t, u, 96); t[0] |= 0x80;                       /* compressed bit on uncompressed */
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_ENCODING_FLAGS);
    assert_int_equal(cz_g1_deserialize_unchecked(&r, t), CZ_ERR_ENCODING_FLAGS);
    memcpy(t, u, 96); t[0] |= 0x20;                       /* sort bit on uncompressed */
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_ENCODING_FLAGS);
    memset(t, 0, 48); t[0] = 0xe0;                        /* sort bit with infinity */
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_ENCODING_FLAGS);
    memset(t, 0, 96); t[0] = 0x60;
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_ENCODING_FLAGS);
    memset(t, 0, 96); t[0] = 0xc0;                        /* compressed infinity, 96-byte format */
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_ENCODING_FLAGS);

    /* infinity: only the canonical form */
    memset(t, 0, 48); t[0] = 0xc0;
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_OK);
    assert_true(cz_g1_affine_is_infinity(&r));
    t[47] = 1;
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_INFINITY_ENCODING);
    t[47] = 0; t[0] = 0xc1;
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_INFINITY_ENCODING);
    memcpy(t, c, 48); t[0] |= 0x40; t[0] &= ~0x20;        /* infinity flag on a real x */
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_INFINITY_ENCODING);
    memset(t, 0, 96); t[0] = 0x40;
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_OK);
    assert_true(cz_g1_affine_is_infinity(&r));
    t[60] = 0x10;                                         /* y part nonzero */
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_INFINITY_ENCODING);
    assert_int_equal(cz_g1_deserialize_unchecked(&r, t), CZ_ERR_INFINITY_ENCODING);

    /* x >= p, y >= p */
    memcpy(t, pb, 48); t[0] |= 0x80;                      /* x = p */
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_NOT_CANONICAL);
    memset(t, 0xff, 48); t[0] = 0x9f;                     /* x = 2^381 - 1 */
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_NOT_CANONICAL);
    memcpy(t, u, 96); memcpy(t, pb, 48);                  /* uncompressed x = p */
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_NOT_CANONICAL);
    memcpy(t, u, 96); memcpy(t + 48, pb, 48);             /* y = p */
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_NOT_CANONICAL);
    assert_int_equal(cz_g1_deserialize_unchecked(&r, t), CZ_ERR_NOT_CANONICAL);
    /* y + p: the same point if it were reduced: must still be refused */
    {
        cz_g1_affine a;
        uint64_t yl[6], s[6];
        assert_int_equal(cz_g1_deserialize(&a, u), CZ_OK);
        cz_fp_to_raw(yl, &a.y);
        unsigned __int128 cy = 0;
        for (int i = 0; i < 6; i++) {
            cy += (unsigned __int128)yl[i] + CZ_FP_MODULUS[i];
            s[i] = (uint64_t)cy;
            cy >>= 64;
        }
        if (s[5] < (1ULL << 61)) {                          /* still fits in 381 bits */
            memcpy(t, u, 96);
            for (int i = 0; i < 48; i++) t[48 + i] = (uint8_t)(s[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
            assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_NOT_CANONICAL);
        }
    }

    /* not on the curve */
    memcpy(t, u, 96); t[95] ^= 1;
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_NOT_ON_CURVE);
    assert_int_equal(cz_g1_deserialize_unchecked(&r, t), CZ_ERR_NOT_ON_CURVE);
    memset(t, 0, 96);                                     /* (0,0) without the infinity flag */
    assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_NOT_ON_CURVE);

    /* compressed x without a y: x^3 + 4 not a square */
    {
        cz_fp x, rhs;
        uint64_t v = 1;
        for (;; v++) {
            cz_fp_from_u64(&x, v);
            t_g1_rhs(&rhs, &x);
            if (cz_fp_legendre(&rhs) == -1) break;
        }
        cz_fp_to_bytes_be(t, &x);
        t[0] |= 0x80;
        assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_NO_SQRT);
        t[0] |= 0x20;
        assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_NO_SQRT);
    }

    /* on the curve, not in the subgroup; _unchecked accepts it */
    for (int i = 0; i < 4; i++) {
        cz_g1_affine p, q;
        cz_g1_jac pj;
        t_g1_random_curve_point(&p);
        cz_g1_jac_from_affine(&pj, &p);
        cz_g1_jac_mul_var(&pj, &pj, CZ_FR_MODULUS, 4);
        assert_false(cz_g1_jac_is_infinity(&pj));           /* really outside */
        cz_g1_compress(t, &p);
        assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_NOT_IN_SUBGROUP);
        cz_g1_serialize(t, &p);
        assert_int_equal(cz_g1_deserialize(&r, t), CZ_ERR_NOT_IN_SUBGROUP);
        assert_int_equal(cz_g1_deserialize_unchecked(&q, t), CZ_OK);
        assert_true(cz_g1_affine_eq(&p, &q));
    }
    /* x = 0: (0, ±2) is on the curve; it is not in G1 */
    memset(t, 0, 48); t[0] = 0x80;
    assert_int_equal(cz_g1_uncompress(&r, t), CZ_ERR_NOT_IN_SUBGROUP);
}

static void g2_invalid(void **state)
{
    (void)state;
    uint8_t c[96], u[192], t[192], pb[48];
    cz_g2_affine r;
    valid_g2(c, u);
    p_be(pb);
    assert_int_equal(cz_g2_uncompress(&r, c), CZ_OK);
    assert_int_equal(cz_g2_deserialize(&r, u), CZ_OK);

    /* flags */
    memcpy(t, c, 96); t[0] &= 0x7f;
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_ENCODING_FLAGS);
    memcpy(t, u, 192); t[0] |= 0x80;
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_ENCODING_FLAGS);
    memcpy(t, u, 192); t[0] |= 0x20;
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_ENCODING_FLAGS);
    assert_int_equal(cz_g2_deserialize_unchecked(&r, t), CZ_ERR_ENCODING_FLAGS);
    memset(t, 0, 96); t[0] = 0xe0;
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_ENCODING_FLAGS);
    memset(t, 0, 192); t[0] = 0x60;
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_ENCODING_FLAGS);

    /* infinity */
    memset(t, 0, 96); t[0] = 0xc0;
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_OK);
    assert_true(cz_g2_affine_is_infinity(&r));
    t[50] = 4;                                            /* in the c0 half */
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_INFINITY_ENCODING);
    t[50] = 0; t[0] = 0xd0;
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_INFINITY_ENCODING);
    memset(t, 0, 192); t[0] = 0x40;
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_OK);
    assert_true(cz_g2_affine_is_infinity(&r));
    t[191] = 1;
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_INFINITY_ENCODING);

    /* coordinates >= p, in each of the four Fp slots */
    memcpy(t, c, 96); memcpy(t, pb, 48); t[0] |= 0x80;    /* x.c1 = p */
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_NOT_CANONICAL);
    memcpy(t, c, 96); memcpy(t + 48, pb, 48);             /* x.c0 = p */
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_NOT_CANONICAL);
    memcpy(t, c, 96); memset(t + 48, 0xff, 48);           /* x.c0 = 2^384 - 1 */
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_NOT_CANONICAL);
    memset(t, 0xff, 96); t[0] = 0x9f;                     /* top bits of x.c1 set */
    assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_NOT_CANONICAL);
    for (int slot = 0; slot < 4; slot++) {
        memcpy(t, u, 192);
        memcpy(t + 48 * slot, pb, 48);
        assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_NOT_CANONICAL);
        assert_int_equal(cz_g2_deserialize_unchecked(&r, t), CZ_ERR_NOT_CANONICAL);
    }

    /* not on the curve */
    memcpy(t, u, 192); t[191] ^= 1;
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_NOT_ON_CURVE);
    assert_int_equal(cz_g2_deserialize_unchecked(&r, t), CZ_ERR_NOT_ON_CURVE);
    memcpy(t, u, 192); t[100] ^= 1;                       /* y.c1 changed */
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_NOT_ON_CURVE);
    memset(t, 0, 192);
    assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_NOT_ON_CURVE);

    /* compressed x without a y */
    {
        cz_fp2 x, rhs, y;
        for (uint64_t v = 1;; v++) {
            cz_fp_from_u64(&x.c0, v);
            cz_fp_from_u64(&x.c1, 1);
            t_g2_rhs(&rhs, &x);
            if (!cz_fp2_sqrt(&y, &rhs)) break;
        }
        cz_fp_to_bytes_be(t, &x.c1);
        cz_fp_to_bytes_be(t + 48, &x.c0);
        t[0] |= 0x80;
        assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_NO_SQRT);
    }

    /* on the curve, not in the subgroup */
    for (int i = 0; i < 3; i++) {
        cz_g2_affine p, q;
        cz_g2_jac pj;
        t_g2_random_curve_point(&p);
        cz_g2_jac_from_affine(&pj, &p);
        cz_g2_jac_mul_var(&pj, &pj, CZ_FR_MODULUS, 4);
        assert_false(cz_g2_jac_is_infinity(&pj));
        cz_g2_compress(t, &p);
        assert_int_equal(cz_g2_uncompress(&r, t), CZ_ERR_NOT_IN_SUBGROUP);
        cz_g2_serialize(t, &p);
        assert_int_equal(cz_g2_deserialize(&r, t), CZ_ERR_NOT_IN_SUBGROUP);
        assert_int_equal(cz_g2_deserialize_unchecked(&q, t), CZ_OK);
        assert_true(cz_g2_affine_eq(&p, &q));
    }
}

/* Both y signs round-trip through compression (the sort flag decides). */
static void sign_roundtrip(void **state)
{
    (void)state;
    for (int i = 0; i < EC_ITERS(20, 5); i++) {
        cz_scalar k;
        cz_g1_jac a;
        cz_g2_jac b;
        cz_g1_affine aa, an, ad;
        cz_g2_affine ba, bn, bd;
        uint8_t buf[96];
        rng_scalar(&k);
        cz_g1_generator_jac(&a);
        cz_g1_jac_mul_var(&a, &a, k.l, 4);
        cz_g1_jac_to_affine(&aa, &a);
        cz_g1_affine_neg(&an, &aa);
        cz_g1_compress(buf, &aa);
        assert_int_equal(cz_g1_uncompress(&ad, buf), CZ_OK);
        assert_true(cz_g1_affine_eq(&ad, &aa));
        buf[0] ^= 0x20;                                    /* other root = -P */
        assert_int_equal(cz_g1_uncompress(&ad, buf), CZ_OK);
        assert_true(cz_g1_affine_eq(&ad, &an));
        cz_g2_generator_jac(&b);
        cz_g2_jac_mul_var(&b, &b, k.l, 4);
        cz_g2_jac_to_affine(&ba, &b);
        cz_g2_affine_neg(&bn, &ba);
        cz_g2_compress(buf, &ba);
        assert_int_equal(cz_g2_uncompress(&bd, buf), CZ_OK);
        assert_true(cz_g2_affine_eq(&bd, &ba));
        buf[0] ^= 0x20;
        assert_int_equal(cz_g2_uncompress(&bd, buf), CZ_OK);
        assert_true(cz_g2_affine_eq(&bd, &bn));
    }
}

/* Robustness: mutated encodings (bit flips, random bytes, random flag bits)
 * never crash a decoder, and whatever a decoder accepts is a valid point
 * whose encoding is exactly the input (every point has ONE encoding). */
static void mutated_inputs(void **state)
{
    (void)state;
    int iters = EC_ITERS(600, 150);
    int accepted = 0;
    for (int it = 0; it < iters; it++) {
        uint8_t c1[48], u1[96], c2[96], u2[192], t[192], back[192];
        valid_g1(c1, u1);
        valid_g2(c2, u2);
        const uint8_t *src[4] = {c1, u1, c2, u2};
        const size_t len[4] = {48, 96, 96, 192};
        for (int f = 0; f < 4; f++) {
            memcpy(t, src[f], len[f]);
            switch (cz_rng_u64() % 4) {
            case 0: t[cz_rng_u64() % len[f]] ^= (uint8_t)(1u << (cz_rng_u64() % 8)); break;
            case 1: t[0] = (uint8_t)((t[0] & 0x1f) | ((cz_rng_u64() % 8) << 5)); break;
            case 2: cz_rng_bytes(t, len[f]); break;
            default: memset(t + 1, 0, len[f] - 1); t[0] = (uint8_t)cz_rng_u64(); break;
            }
            cz_status st;
            if (f < 2) {
                cz_g1_affine p;
                st = f == 0 ? cz_g1_uncompress(&p, t) : cz_g1_deserialize(&p, t);
                if (st == CZ_OK) {
                    assert_true(cz_g1_affine_is_on_curve(&p));
                    assert_true(cz_g1_affine_in_subgroup(&p));
                    if (f == 0) cz_g1_compress(back, &p); else cz_g1_serialize(back, &p);
                }
            } else {
                cz_g2_affine p;
                st = f == 2 ? cz_g2_uncompress(&p, t) : cz_g2_deserialize(&p, t);
                if (st == CZ_OK) {
                    assert_true(cz_g2_affine_is_on_curve(&p));
                    assert_true(cz_g2_affine_in_subgroup(&p));
                    if (f == 2) cz_g2_compress(back, &p); else cz_g2_serialize(back, &p);
                }
            }
            if (st == CZ_OK) {
                assert_memory_equal(back, t, len[f]);
                accepted++;
            } else {
                assert_true(st == CZ_ERR_ENCODING_FLAGS || st == CZ_ERR_INFINITY_ENCODING ||
                            st == CZ_ERR_NOT_CANONICAL || st == CZ_ERR_NO_SQRT ||
                            st == CZ_ERR_NOT_ON_CURVE || st == CZ_ERR_NOT_IN_SUBGROUP);
            }
        }
    }
    assert_true(accepted > 0); /* the flag-only mutations keep some inputs valid */
}

/* ---- @noble/curves known answers -------------------------------------------- */

static char *noble_json;

/* Next value of "key":"<hex>" after *cur; parses exactly n bytes. */
static void next_hex(const char **cur, const char *key, uint8_t *out, size_t n)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *s = strstr(*cur, pat);
    assert_non_null(s);
    s += strlen(pat);
    const char *e = t_hex_bytes(out, n, s);
    assert_int_equal(*e, '"');
    *cur = e;
}

static size_t count_of(const char *key)
{
    size_t n = 0;
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    for (const char *s = strstr(noble_json, pat); s; s = strstr(s + 1, pat)) n++;
    return n;
}

static void noble_scalars(void **state)
{
    (void)state;
    const char *cur = noble_json;
    size_t n = count_of("k");
    assert_true(n >= 20);
    cz_g1_jac g1;
    cz_g2_jac g2;
    cz_g1_generator_jac(&g1);
    cz_g2_generator_jac(&g2);
    for (size_t i = 0; i < n; i++) {
        uint8_t kb[32], e1c[48], e1u[96], e2c[96], e2u[192], buf[192];
        next_hex(&cur, "k", kb, 32);
        next_hex(&cur, "g1c", e1c, 48);
        next_hex(&cur, "g1u", e1u, 96);
        next_hex(&cur, "g2c", e2c, 96);
        next_hex(&cur, "g2u", e2u, 192);
        cz_scalar k = {{0}};
        for (int j = 0; j < 32; j++) k.l[(31 - j) / 8] |= (uint64_t)kb[j] << (8 * ((31 - j) % 8));
        cz_g1_jac p1;
        cz_g2_jac p2;
        cz_g1_affine a1, d1;
        cz_g2_affine a2, d2;
        cz_g1_jac_mul_ct(&p1, &g1, &k);
        cz_g2_jac_mul_ct(&p2, &g2, &k);
        cz_g1_jac_to_affine(&a1, &p1);
        cz_g2_jac_to_affine(&a2, &p2);
        cz_g1_compress(buf, &a1);
        assert_memory_equal(buf, e1c, 48);
        cz_g1_serialize(buf, &a1);
        assert_memory_equal(buf, e1u, 96);
        cz_g2_compress(buf, &a2);
        assert_memory_equal(buf, e2c, 96);
        cz_g2_serialize(buf, &a2);
        assert_memory_equal(buf, e2u, 192);
        assert_int_equal(cz_g1_uncompress(&d1, e1c), CZ_OK);
        assert_true(cz_g1_affine_eq(&d1, &a1));
        assert_int_equal(cz_g2_uncompress(&d2, e2c), CZ_OK);
        assert_true(cz_g2_affine_eq(&d2, &a2));
        cz_g1_jac_mul_var(&p1, &g1, k.l, 4);
        cz_g1_jac_to_affine(&d1, &p1);
        assert_true(cz_g1_affine_eq(&d1, &a1));
        cz_g2_jac_mul_var(&p2, &g2, k.l, 4);
        cz_g2_jac_to_affine(&d2, &p2);
        assert_true(cz_g2_affine_eq(&d2, &a2));
    }
}

static void noble_sums(void **state)
{
    (void)state;
    const char *cur = noble_json;
    size_t n = count_of("sum_g1");
    assert_true(n >= 10);
    for (size_t i = 0; i < n; i++) {
        uint8_t a1[48], b1[48], s1[48], a2[96], b2[96], s2[96], buf[96];
        next_hex(&cur, "a_g1", a1, 48);
        next_hex(&cur, "b_g1", b1, 48);
        next_hex(&cur, "sum_g1", s1, 48);
        next_hex(&cur, "a_g2", a2, 96);
        next_hex(&cur, "b_g2", b2, 96);
        next_hex(&cur, "sum_g2", s2, 96);
        cz_g1_affine pa, pb, ps;
        cz_g1_jac ja, jb;
        assert_int_equal(cz_g1_uncompress(&pa, a1), CZ_OK);
        assert_int_equal(cz_g1_uncompress(&pb, b1), CZ_OK);
        cz_g1_jac_from_affine(&ja, &pa);
        cz_g1_jac_from_affine(&jb, &pb);
        cz_g1_jac_add(&ja, &ja, &jb);
        cz_g1_jac_to_affine(&ps, &ja);
        cz_g1_compress(buf, &ps);
        assert_memory_equal(buf, s1, 48);
        cz_g2_affine qa, qb, qs;
        cz_g2_jac ka;
        assert_int_equal(cz_g2_uncompress(&qa, a2), CZ_OK);
        assert_int_equal(cz_g2_uncompress(&qb, b2), CZ_OK);
        cz_g2_jac_from_affine(&ka, &qa);
        cz_g2_jac_add_affine(&ka, &ka, &qb);
        cz_g2_jac_to_affine(&qs, &ka);
        cz_g2_compress(buf, &qs);
        assert_memory_equal(buf, s2, 96);
    }
}

static void noble_cofactor(void **state)
{
    (void)state;
    const char *cur = noble_json;
    size_t n = count_of("cleared");
    assert_true(n >= 8);
    for (size_t i = 0; i < n; i++) {
        const char *g = strstr(cur, "\"group\":\"");
        assert_non_null(g);
        bool is_g2 = g[10] == '2';
        uint8_t raw[192], cl[96], buf[96];
        if (!is_g2) {
            next_hex(&cur, "raw", raw, 96);
            next_hex(&cur, "cleared", cl, 48);
            cz_g1_affine p, c;
            cz_g1_jac j;
            assert_int_equal(cz_g1_deserialize(&p, raw), CZ_ERR_NOT_IN_SUBGROUP);
            assert_int_equal(cz_g1_deserialize_unchecked(&p, raw), CZ_OK);
            cz_g1_jac_from_affine(&j, &p);
            cz_g1_clear_cofactor(&j, &j);
            cz_g1_jac_to_affine(&c, &j);
            cz_g1_compress(buf, &c);
            assert_memory_equal(buf, cl, 48);
        } else {
            next_hex(&cur, "raw", raw, 192);
            next_hex(&cur, "cleared", cl, 96);
            cz_g2_affine p, c;
            cz_g2_jac j;
            assert_int_equal(cz_g2_deserialize(&p, raw), CZ_ERR_NOT_IN_SUBGROUP);
            assert_int_equal(cz_g2_deserialize_unchecked(&p, raw), CZ_OK);
            cz_g2_jac_from_affine(&j, &p);
            cz_g2_clear_cofactor(&j, &j);
            cz_g2_jac_to_affine(&c, &j);
            cz_g2_compress(buf, &c);
            assert_memory_equal(buf, cl, 96);
        }
    }
}

static int load_noble(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = cz_read_file(cz_vector_path("noble_ec.json"), &len);
    noble_json = realloc(b, len + 1);
    noble_json[len] = 0;
    return 0;
}

static int free_noble(void **state)
{
    (void)state;
    free(noble_json);
    return 0;
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(g1_vectors),
        cmocka_unit_test(g2_vectors),
        cmocka_unit_test(g1_invalid),
        cmocka_unit_test(g2_invalid),
        cmocka_unit_test(sign_roundtrip),
        cmocka_unit_test(mutated_inputs),
        cmocka_unit_test(noble_scalars),
        cmocka_unit_test(noble_sums),
        cmocka_unit_test(noble_cofactor),
    };
    return cmocka_run_group_tests(tests, load_noble, free_noble);
}
