/*
 * Point encodings, zcash / Filecoin rules (docs/design.md §3.1):
 *   Fp elements 48-byte big-endian canonical; Fp2 written c1 then c0;
 *   byte 0 carries three flags: bit 7 compressed, bit 6 infinity, bit 5
 *   (compressed, finite points only) "y is the lexicographically larger
 *   root" (Fp2: c1 decides unless it is zero).
 * Decoding validates in the order documented in cuzk/curve.h and returns a
 * distinct status per failure, so callers (parameter loader, proof parser)
 * can say exactly what is wrong with an input.
 */
#include <string.h>
#include "cuzk/curve.h"

#define FLAG_C 0x80u
#define FLAG_I 0x40u
#define FLAG_S 0x20u

/* Flag checks shared by all decoders. *inf is set when the input is the
 * (canonically encoded) point at infinity. */
static cz_status check_flags(const uint8_t *in, size_t len, bool compressed, bool *inf)
{
    uint8_t b0 = in[0];
    bool c = b0 & FLAG_C, i = b0 & FLAG_I, s = b0 & FLAG_S;
    *inf = false;
    if (c != compressed) return CZ_ERR_ENCODING_FLAGS;
    if (s && (!compressed || i)) return CZ_ERR_ENCODING_FLAGS;
    if (i) {
        uint8_t acc = b0 & 0x1f;
        for (size_t k = 1; k < len; k++) acc |= in[k];
        if (acc) return CZ_ERR_INFINITY_ENCODING;
        *inf = true;
    }
    return CZ_OK;
}

/* 48 bytes (flag bits of byte 0 masked when first) -> Fp. */
static cz_status read_fp(cz_fp *r, const uint8_t *in, bool first)
{
    uint8_t t[48];
    memcpy(t, in, 48);
    if (first) t[0] &= 0x1f;
    return cz_fp_from_bytes_be(r, t) == CZ_OK ? CZ_OK : CZ_ERR_NOT_CANONICAL;
}

static cz_status read_fp2(cz_fp2 *r, const uint8_t *in, bool first)
{
    if (read_fp(&r->c1, in, first) != CZ_OK) return CZ_ERR_NOT_CANONICAL;
    return read_fp(&r->c0, in + 48, false);
}

static void write_fp2(uint8_t *out, const cz_fp2 *a)
{
    cz_fp_to_bytes_be(out, &a->c1);
    cz_fp_to_bytes_be(out + 48, &a->c0);
}

/* b = 4 and b' = 4(1+u), for the curve-equation checks below. */
static void g1_rhs(cz_fp *r, const cz_fp *x)
{
    cz_fp t, four;
    cz_fp_from_u64(&four, 4);
    cz_fp_sqr(&t, x);
    cz_fp_mul(&t, &t, x);
    cz_fp_add(r, &t, &four);
}

static void g2_rhs(cz_fp2 *r, const cz_fp2 *x)
{
    cz_fp2 t, b;
    cz_fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    cz_fp2_sqr(&t, x);
    cz_fp2_mul(&t, &t, x);
    cz_fp2_add(r, &t, &b);
}

/* ---- G1 ---------------------------------------------------------------- */

void cz_g1_compress(uint8_t out[48], const cz_g1_affine *p)
{
    if (cz_g1_affine_is_infinity(p)) {
        memset(out, 0, 48);
        out[0] = FLAG_C | FLAG_I;
        return;
    }
    cz_fp_to_bytes_be(out, &p->x);
    out[0] |= FLAG_C | (cz_fp_is_lex_largest(&p->y) ? FLAG_S : 0);
}

void cz_g1_serialize(uint8_t out[96], const cz_g1_affine *p)
{
    if (cz_g1_affine_is_infinity(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_I;
        return;
    }
    cz_fp_to_bytes_be(out, &p->x);
    cz_fp_to_bytes_be(out + 48, &p->y);
}

cz_status cz_g1_uncompress(cz_g1_affine *r, const uint8_t in[48])
{
    bool inf;
    cz_status st = check_flags(in, 48, true, &inf);
    if (st != CZ_OK) return st;
    if (inf) { cz_g1_affine_set_infinity(r); return CZ_OK; }
    cz_g1_affine p;
    if (read_fp(&p.x, in, true) != CZ_OK) return CZ_ERR_NOT_CANONICAL;
    cz_fp rhs;
    g1_rhs(&rhs, &p.x);
    if (!cz_fp_sqrt(&p.y, &rhs)) return CZ_ERR_NO_SQRT;
    if (cz_fp_is_lex_largest(&p.y) != (bool)(in[0] & FLAG_S)) cz_fp_neg(&p.y, &p.y);
    if (!cz_g1_affine_in_subgroup(&p)) return CZ_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CZ_OK;
}

static cz_status g1_deserialize(cz_g1_affine *r, const uint8_t in[96], bool check_subgroup)
{
    bool inf;
    cz_status st = check_flags(in, 96, false, &inf);
    if (st != CZ_OK) return st;
    if (inf) { cz_g1_affine_set_infinity(r); return CZ_OK; }
    cz_g1_affine p;
    if (read_fp(&p.x, in, true) != CZ_OK || read_fp(&p.y, in + 48, false) != CZ_OK)
        return CZ_ERR_NOT_CANONICAL;
    /* The curve equation directly: (0,0) means infinity in memory but is not
     * a valid encoding of it (that needs the infinity flag). */
    cz_fp l, rhs;
    cz_fp_sqr(&l, &p.y);
    g1_rhs(&rhs, &p.x);
    if (!cz_fp_eq(&l, &rhs)) return CZ_ERR_NOT_ON_CURVE;
    if (check_subgroup && !cz_g1_affine_in_subgroup(&p)) return CZ_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CZ_OK;
}

cz_status cz_g1_deserialize(cz_g1_affine *r, const uint8_t in[96])
{
    return g1_deserialize(r, in, true);
}

cz_status cz_g1_deserialize_unchecked(cz_g1_affine *r, const uint8_t in[96])
{
    return g1_deserialize(r, in, false);
}

/* ---- G2 ---------------------------------------------------------------- */

void cz_g2_compress(uint8_t out[96], const cz_g2_affine *p)
{
    if (cz_g2_affine_is_infinity(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_C | FLAG_I;
        return;
    }
    write_fp2(out, &p->x);
    out[0] |= FLAG_C | (cz_fp2_is_lex_largest(&p->y) ? FLAG_S : 0);
}

void cz_g2_serialize(uint8_t out[192], const cz_g2_affine *p)
{
    if (cz_g2_affine_is_infinity(p)) {
        memset(out, 0, 192);
        out[0] = FLAG_I;
        return;
    }
    write_fp2(out, &p->x);
    write_fp2(out + 96, &p->y);
}

cz_status cz_g2_uncompress(cz_g2_affine *r, const uint8_t in[96])
{
    bool inf;
    cz_status st = check_flags(in, 96, true, &inf);
    if (st != CZ_OK) return st;
    if (inf) { cz_g2_affine_set_infinity(r); return CZ_OK; }
    cz_g2_affine p;
    if (read_fp2(&p.x, in, true) != CZ_OK) return CZ_ERR_NOT_CANONICAL;
    cz_fp2 rhs;
    g2_rhs(&rhs, &p.x);
    if (!cz_fp2_sqrt(&p.y, &rhs)) return CZ_ERR_NO_SQRT;
    if (cz_fp2_is_lex_largest(&p.y) != (bool)(in[0] & FLAG_S)) cz_fp2_neg(&p.y, &p.y);
    if (!cz_g2_affine_in_subgroup(&p)) return CZ_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CZ_OK;
}

static cz_status g2_deserialize(cz_g2_affine *r, const uint8_t in[192], bool check_subgroup)
{
    bool inf;
    cz_status st = check_flags(in, 192, false, &inf);
    if (st != CZ_OK) return st;
    if (inf) { cz_g2_affine_set_infinity(r); return CZ_OK; }
    cz_g2_affine p;
    if (read_fp2(&p.x, in, true) != CZ_OK || read_fp2(&p.y, in + 96, false) != CZ_OK)
        return CZ_ERR_NOT_CANONICAL;
    cz_fp2 l, rhs;
    cz_fp2_sqr(&l, &p.y);
    g2_rhs(&rhs, &p.x);
    if (!cz_fp2_eq(&l, &rhs)) return CZ_ERR_NOT_ON_CURVE;
    if (check_subgroup && !cz_g2_affine_in_subgroup(&p)) return CZ_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CZ_OK;
}

cz_status cz_g2_deserialize(cz_g2_affine *r, const uint8_t in[192])
{
    return g2_deserialize(r, in, true);
}

cz_status cz_g2_deserialize_unchecked(cz_g2_affine *r, const uint8_t in[192])
{
    return g2_deserialize(r, in, false);
}
