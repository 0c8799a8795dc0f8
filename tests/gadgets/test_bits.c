/*
 * Boolean, bit-decomposition and uint32 gadget tests.
 *  - and/xor/xor3/ch/maj exhaustively: every operand kind (constant,
 *    variable, negated variable) × every value; the result read from the
 *    assignment equals the truth table, each op costs <= 1 constraint, and
 *    a new result variable set to the wrong bit (or to 2) makes the
 *    recorded matrices unsatisfied (the constraint pins it uniquely);
 *  - booleanity rejects 2; bit equality;
 *  - uint32 xor/xor3/and/ch/maj/rotr/shr/add_many against native C on
 *    random words (some constant), values read from the assignment; the
 *    checker accepts; constraint counts per op (add of 2 words = 34);
 *  - the witness generator (bulk paths) reproduces the recorder's assignment;
 *  - num_to_bits (1..254 bits) against the limbs, too-large values refused;
 *    255-bit strict decomposition accepts every Fr and rejects the
 *    non-canonical bits of v + r, which the non-strict variant accepts;
 *  - packing and byte/bit conversion.
 */
#include "testutil.h"
#include "cuzk/gadgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned assigned(const cz_cs *cs, const cz_bit *b)
{
    if (b->kind == CZ_BIT_CONST)
        return b->value;
    cz_fr v;
    cz_cs_value(cs, b->var, &v);
    unsigned x = cz_fr_is_one(&v) ? 1 : cz_fr_is_zero(&v) ? 0 : 2;
    return b->kind == CZ_BIT_NOT ? (x == 2 ? 2 : 1 - x) : x;
}

/* ---- exhaustive boolean ops ------------------------------------------------ */
enum { OP_AND, OP_XOR, OP_XOR3, OP_CH, OP_MAJ, NOPS };
static const char *const opname[NOPS] = {"and", "xor", "xor3", "ch", "maj"};
static const unsigned arity[NOPS] = {2, 2, 3, 3, 3};

static unsigned truth(int op, unsigned a, unsigned b, unsigned c)
{
    switch (op) {
    case OP_AND: return a & b;
    case OP_XOR: return a ^ b;
    case OP_XOR3: return a ^ b ^ c;
    case OP_CH: return a ? b : c;
    default: return (a + b + c) >= 2;
    }
}

typedef struct {
    int op;
    unsigned kinds[3], vals[3];
    int share; /* operands 0 and 1 use the same variable (when both non-const) */
    /* out */
    unsigned result;
    size_t cost;
    cz_bit res;
    size_t aux_before;
} bool_ctx;

static cz_status bool_synth(cz_cs *cs, const void *vctx)
{
    bool_ctx *ctx = (bool_ctx *)vctx;
    cz_bit in[3];
    for (unsigned i = 0; i < arity[ctx->op]; i++) {
        unsigned v = ctx->vals[i];
        if (ctx->kinds[i] == 0) {
            in[i] = cz_bit_const(v);
        } else if (i == 1 && ctx->share && ctx->kinds[0] != 0) {
            in[1] = in[0];
            if ((ctx->kinds[1] == 2) != (ctx->kinds[0] == 2))
                in[1] = cz_bit_not(in[1]);
        } else {
            /* kind 2: allocate ¬v and negate, so the bit's value is v */
            cz_bit_alloc(cs, &in[i], ctx->kinds[i] == 2 ? !v : v);
            if (ctx->kinds[i] == 2)
                in[i] = cz_bit_not(in[i]);
        }
    }
    size_t before = cz_cs_num_constraints(cs);
    ctx->aux_before = cz_cs_num_aux(cs);
    cz_bit r;
    switch (ctx->op) {
    case OP_AND: cz_bit_and(cs, &r, &in[0], &in[1]); break;
    case OP_XOR: cz_bit_xor(cs, &r, &in[0], &in[1]); break;
    case OP_XOR3: cz_bit_xor3(cs, &r, &in[0], &in[1], &in[2]); break;
    case OP_CH: cz_bit_ch(cs, &r, &in[0], &in[1], &in[2]); break;
    default: cz_bit_maj(cs, &r, &in[0], &in[1], &in[2]); break;
    }
    ctx->cost = cz_cs_num_constraints(cs) - before;
    ctx->result = assigned(cs, &r);
    ctx->res = r;
    return CZ_OK;
}

static void check_bool_case(bool_ctx *ctx)
{
    cz_pce *p = NULL;
    cz_witness w;
    assert_int_equal(cz_pce_record(&p, bool_synth, ctx, &w), CZ_OK);
    unsigned a = ctx->vals[0], b = ctx->vals[1], c = ctx->vals[2];
    if (ctx->share && ctx->kinds[0] && ctx->kinds[1])
        b = (ctx->kinds[0] == ctx->kinds[1]) ? a : !a;
    unsigned want = truth(ctx->op, a, b, c);
    if (ctx->result != want)
        fail_msg("%s kinds %u%u%u vals %u%u%u share %d: got %u want %u", opname[ctx->op], ctx->kinds[0],
                 ctx->kinds[1], ctx->kinds[2], a, b, c, ctx->share, ctx->result, want);
    assert_true(ctx->cost <= 1);
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_OK);
    /* uniqueness: a newly allocated result cannot take another value */
    if (ctx->res.kind != CZ_BIT_CONST && cz_var_index(ctx->res.var) >= ctx->aux_before) {
        size_t i = cz_var_index(ctx->res.var);
        cz_fr saved = w.aux[i];
        cz_fr_sub(&w.aux[i], &CZ_FR_ONE, &saved);
        assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_ERR_UNSATISFIED);
        cz_fr_from_u64(&w.aux[i], 2);
        assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_ERR_UNSATISFIED);
        w.aux[i] = saved;
    }
    cz_witness_free(&w);
    cz_pce_free(p);
}

static void test_bool_exhaustive(void **state)
{
    (void)state;
    size_t cases = 0;
    for (int op = 0; op < NOPS; op++) {
        unsigned n = arity[op];
        unsigned nk = 1, nvals = 1u << n;
        for (unsigned i = 0; i < n; i++)
            nk *= 3;
        for (unsigned k = 0; k < nk; k++)
            for (unsigned v = 0; v < nvals; v++)
                for (int share = 0; share < 2; share++) {
                    bool_ctx ctx = {.op = op, .share = share};
                    unsigned kk = k;
                    for (unsigned i = 0; i < 3; i++) {
                        ctx.kinds[i] = i < n ? kk % 3 : 0;
                        kk /= 3;
                        ctx.vals[i] = i < n ? (v >> i) & 1 : 0;
                    }
                    check_bool_case(&ctx);
                    cases++;
                }
    }
    fprintf(stderr, "boolean ops: %zu cases\n", cases);
}

typedef struct {
    int which;
} misc_ctx;

static cz_status misc_synth(cz_cs *cs, const void *vctx)
{
    const misc_ctx *ctx = vctx;
    cz_fr two;
    cz_fr_from_u64(&two, 2);
    if (ctx->which == 0) { /* a non-boolean value fails booleanity */
        cz_var v;
        cz_cs_alloc_aux(cs, &v, &two);
        cz_cs_push_scope(cs, "bad_bit");
        cz_enforce_boolean(cs, v);
        cz_cs_pop_scope(cs);
    } else { /* equality of different bits */
        cz_bit a, b;
        cz_bit_alloc(cs, &a, true);
        cz_bit_alloc(cs, &b, ctx->which == 2);
        cz_bit_enforce_equal(cs, &a, &b, "eq");
    }
    return CZ_OK;
}

static void test_bool_misc(void **state)
{
    (void)state;
    cz_check_report rep;
    misc_ctx c0 = {0}, c1 = {1}, c2 = {2};
    assert_int_equal(cz_cs_check(misc_synth, &c0, &rep), CZ_ERR_UNSATISFIED);
    assert_string_equal(rep.where, "bad_bit/boolean");
    assert_int_equal(cz_cs_check(misc_synth, &c1, &rep), CZ_ERR_UNSATISFIED);
    assert_string_equal(rep.where, "eq");
    assert_int_equal(cz_cs_check(misc_synth, &c2, &rep), CZ_OK);
}

/* ---- uint32 ------------------------------------------------------------------ */
static uint32_t rotr32(uint32_t x, unsigned k) { return k ? (x >> k) | (x << (32 - k)) : x; }

static uint32_t word_assigned(const cz_cs *cs, const cz_u32 *w, int *bad)
{
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) {
        unsigned b = assigned(cs, &w->b[i]);
        if (b > 1)
            (*bad)++;
        v |= (uint32_t)(b & 1) << i;
    }
    return v;
}

typedef struct {
    uint32_t x[7];
    unsigned constmask; /* operand i constant when bit i set */
    unsigned rot, nadd;
    int mismatches, bad;
    size_t cost_xor, cost_add2, cost_add3, cost_addn;
} u32_ctx;

static cz_status u32_synth(cz_cs *cs, const void *vctx)
{
    u32_ctx *c = (u32_ctx *)vctx;
    cz_u32 w[7];
    for (int i = 0; i < 7; i++) {
        if (c->constmask >> i & 1)
            cz_u32_const(&w[i], c->x[i]);
        else
            cz_u32_alloc(cs, &w[i], c->x[i]);
    }
    uint32_t a = c->x[0], b = c->x[1], d = c->x[2];
    cz_u32 r;
#define CHECK(expr, want)                                                                                        \
    do {                                                                                                         \
        expr;                                                                                                    \
        if (word_assigned(cs, &r, &c->bad) != (want) && cz_cs_has_values(cs))                                    \
            c->mismatches++;                                                                                     \
    } while (0)
    size_t n0 = cz_cs_num_constraints(cs);
    CHECK(cz_u32_xor(cs, &r, &w[0], &w[1]), a ^ b);
    c->cost_xor = cz_cs_num_constraints(cs) - n0;
    CHECK(cz_u32_xor3(cs, &r, &w[0], &w[1], &w[2]), a ^ b ^ d);
    CHECK(cz_u32_and(cs, &r, &w[0], &w[1]), a & b);
    CHECK(cz_u32_ch(cs, &r, &w[0], &w[1], &w[2]), (a & b) ^ (~a & d));
    CHECK(cz_u32_maj(cs, &r, &w[0], &w[1], &w[2]), (a & b) ^ (a & d) ^ (b & d));
    CHECK(cz_u32_rotr(&r, &w[0], c->rot), rotr32(a, c->rot));
    CHECK(cz_u32_shr(&r, &w[0], c->rot), a >> c->rot);
    /* rotations compose with ops: xor3 of rotations, as SHA-256 uses them */
    cz_u32 p, q, s;
    cz_u32_rotr(&p, &w[0], 2);
    cz_u32_rotr(&q, &w[0], 13);
    cz_u32_shr(&s, &w[0], c->rot);
    CHECK(cz_u32_xor3(cs, &r, &p, &q, &s), rotr32(a, 2) ^ rotr32(a, 13) ^ (a >> c->rot));
    n0 = cz_cs_num_constraints(cs);
    CHECK(cz_u32_add(cs, &r, &w[0], &w[1]), a + b);
    c->cost_add2 = cz_cs_num_constraints(cs) - n0;
    const cz_u32 *ops[7] = {&w[0], &w[1], &w[2], &w[3], &w[4], &w[5], &w[6]};
    n0 = cz_cs_num_constraints(cs);
    CHECK(cz_u32_add_many(cs, &r, ops, 3), a + b + d);
    c->cost_add3 = cz_cs_num_constraints(cs) - n0;
    uint32_t sum = 0;
    for (unsigned i = 0; i < c->nadd; i++)
        sum += c->x[i];
    n0 = cz_cs_num_constraints(cs);
    CHECK(cz_u32_add_many(cs, &r, ops, c->nadd), sum);
    c->cost_addn = cz_cs_num_constraints(cs) - n0;
    /* output aliasing an input */
    cz_u32 t = w[0];
    cz_u32_add(cs, &t, &t, &w[1]);
    r = t;
    CHECK((void)0, a + b);
#undef CHECK
    return CZ_OK;
}

static void test_u32(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    const int iters = 60;
#else
    const int iters = 300;
#endif
    for (int it = 0; it < iters; it++) {
        u32_ctx c = {0};
        for (int i = 0; i < 7; i++) {
            c.x[i] = (uint32_t)cz_rng_u64();
            if (cz_rng_u64() % 8 == 0)
                c.x[i] = (cz_rng_u64() & 1) ? 0xffffffffu : 0;
        }
        c.constmask = it < 20 ? 0 : (unsigned)(cz_rng_u64() & 0x7f);
        c.rot = (unsigned)(cz_rng_u64() % 32);
        c.nadd = 1 + (unsigned)(cz_rng_u64() % 7);
        cz_check_report rep;
        cz_status st = cz_cs_check(u32_synth, &c, &rep);
        if (st != CZ_OK)
            fail_msg("iteration %d: %s at %s", it, cz_status_str(st), rep.where);
        /* witness mode (bulk word paths) = recorder with values (per bit) */
        if (it % 5 == 0) {
            u32_ctx c2 = c;
            cz_pce *p = NULL;
            cz_witness wr, ww;
            assert_int_equal(cz_pce_record(&p, u32_synth, &c2, &wr), CZ_OK);
            assert_int_equal(cz_witness_generate(&ww, u32_synth, &c2, p), CZ_OK);
            assert_int_equal(ww.n_aux, wr.n_aux);
            assert_memory_equal(ww.aux, wr.aux, wr.n_aux * sizeof(cz_fr));
            uint64_t row;
            assert_int_equal(cz_pce_is_satisfied(p, &ww, &row), CZ_OK);
            cz_witness_free(&wr);
            cz_witness_free(&ww);
            cz_pce_free(p);
        }
        assert_int_equal(c.mismatches, 0);
        assert_int_equal(c.bad, 0);
        if (c.constmask == 0) {
            assert_int_equal(c.cost_xor, 32);
            assert_int_equal(c.cost_add2, 34);
            assert_int_equal(c.cost_add3, 35);
            unsigned carry = c.nadd <= 1 ? 0 : c.nadd == 2 ? 1 : c.nadd <= 4 ? 2 : 3;
            assert_int_equal(c.cost_addn, 32 + carry + 1);
        }
        if ((c.constmask & 7) == 7)
            assert_int_equal(c.cost_add3, 0);
    }
    fprintf(stderr, "uint32: xor 32, add of 2 words 34, add of 3 words 35 constraints\n");
}

/* ---- numbers and bits ----------------------------------------------------------- */
typedef struct {
    cz_fr value;
    unsigned n;
    int strict;
    /* out */
    cz_bit bits[255];
} num_ctx;

static cz_status num_synth(cz_cs *cs, const void *vctx)
{
    num_ctx *c = (num_ctx *)vctx;
    cz_var x;
    cz_cs_alloc_input(cs, &x, &c->value);
    cz_lc l;
    cz_lc_init(&l, cs);
    cz_lc_add_var(&l, x);
    cz_cs_push_scope(cs, "num");
    if (c->strict)
        cz_num_to_bits_le_strict(cs, c->bits, &l, &c->value);
    else
        cz_num_to_bits_le(cs, c->bits, &l, &c->value, c->n);
    cz_cs_pop_scope(cs);
    cz_lc_free(&l);
    return CZ_OK;
}

static void rand_bits_value(cz_fr *v, unsigned n)
{
    uint64_t l[4] = {cz_rng_u64(), cz_rng_u64(), cz_rng_u64(), cz_rng_u64()};
    for (unsigned i = n; i < 256; i++)
        l[i / 64] &= ~(1ull << (i % 64));
    assert_int_equal(cz_fr_from_raw(v, l), CZ_OK);
}

/* Sets the witness of the strict circuit to the bit pattern X (255 bits,
 * input x = X mod r): bits are aux 0..254, then the AND chain of the prefix
 * over the one-bits of r - 1 (allocated from the second one-bit on). */
static void strict_witness(cz_witness *w, const uint64_t X[4])
{
    for (unsigned i = 0; i < 255; i++)
        w->aux[i] = ((X[i / 64] >> (i % 64)) & 1) ? CZ_FR_ONE : CZ_FR_ZERO;
    uint64_t rm1[4];
    memcpy(rm1, CZ_FR_MODULUS, sizeof rm1);
    rm1[0] -= 1;
    size_t k = 255;
    unsigned run = 1, seen = 0;
    for (int i = 254; i >= 0; i--) {
        if (!((rm1[i / 64] >> (i % 64)) & 1))
            continue;
        run &= (X[i / 64] >> (i % 64)) & 1;
        if (seen++ > 0)
            w->aux[k++] = run ? CZ_FR_ONE : CZ_FR_ZERO;
    }
    assert_int_equal(k, w->n_aux);
}

static void test_num_bits(void **state)
{
    (void)state;
    static const unsigned ns[] = {1, 2, 8, 31, 64, 65, 128, 200, 253, 254};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        num_ctx c = {.n = ns[t]};
        rand_bits_value(&c.value, ns[t]);
        cz_check_report rep;
        assert_int_equal(cz_cs_check(num_synth, &c, &rep), CZ_OK);
        uint64_t l[4];
        cz_fr_to_raw(l, &c.value);
        for (unsigned i = 0; i < ns[t]; i++)
            assert_int_equal(c.bits[i].value, (l[i / 64] >> (i % 64)) & 1);
        assert_int_equal(rep.n_constraints, ns[t] + 1 + 2);
        cz_fr packed;
        cz_bits_value_le(&packed, c.bits, ns[t]);
        assert_true(cz_fr_eq(&packed, &c.value));
        /* one more bit than allowed: refused */
        if (ns[t] < 254) {
            uint64_t big[4] = {0, 0, 0, 0};
            big[ns[t] / 64] = 1ull << (ns[t] % 64);
            assert_int_equal(cz_fr_from_raw(&c.value, big), CZ_OK);
            assert_int_equal(cz_cs_check(num_synth, &c, &rep), CZ_ERR_INVALID_ARG);
        }
    }
    /* 255 bits strict: random elements, including r - 1 */
    cz_fr rm1;
    cz_fr_neg(&rm1, &CZ_FR_ONE);
    for (int it = 0; it < 6; it++) {
        num_ctx c = {.n = 255, .strict = 1};
        if (it == 0)
            c.value = rm1;
        else
            cz_rng_fr(&c.value);
        cz_check_report rep;
        assert_int_equal(cz_cs_check(num_synth, &c, &rep), CZ_OK);
        if (it == 0)
            fprintf(stderr, "num_to_bits_le_strict (255 bits): %zu constraints\n", rep.n_constraints - 2);
    }
    /* non-canonical bits X = v + r < 2^255: the plain 255-bit decomposition
     * accepts them, the strict one does not */
    for (int it = 0; it < 4; it++) {
        num_ctx c = {.n = 255};
        rand_bits_value(&c.value, 250); /* v < 2^250, so v + r < 2^255 */
        uint64_t v[4], X[4];
        cz_fr_to_raw(v, &c.value);
        unsigned __int128 carry = 0;
        for (int i = 0; i < 4; i++) {
            carry += (unsigned __int128)v[i] + CZ_FR_MODULUS[i];
            X[i] = (uint64_t)carry;
            carry >>= 64;
        }
        assert_true((X[3] >> 63) == 0);
        cz_pce *p = NULL;
        cz_witness w;
        uint64_t row;
        assert_int_equal(cz_pce_record(&p, num_synth, &c, &w), CZ_OK);
        for (unsigned i = 0; i < 255; i++)
            w.aux[i] = ((X[i / 64] >> (i % 64)) & 1) ? CZ_FR_ONE : CZ_FR_ZERO;
        assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_OK); /* the aliasing the strict form prevents */
        cz_witness_free(&w);
        cz_pce_free(p);

        c.strict = 1;
        assert_int_equal(cz_pce_record(&p, num_synth, &c, &w), CZ_OK);
        strict_witness(&w, v); /* the honest bits pass ... */
        assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_OK);
        strict_witness(&w, X); /* ... the non-canonical ones do not */
        assert_int_equal(cz_pce_is_satisfied(p, &w, &row), CZ_ERR_UNSATISFIED);
        cz_check_report rep;
        assert_int_equal(cz_cs_check_witness(num_synth, &c, &w, &rep), CZ_ERR_UNSATISFIED);
        assert_non_null(strstr(rep.where, "num/strict/below_modulus"));
        assert_int_equal(rep.first_failure, row);
        cz_witness_free(&w);
        cz_pce_free(p);
    }
}

typedef struct {
    uint8_t bytes[40];
    uint8_t back[40];
    cz_fr packed;
} pack_ctx;

static cz_status pack_synth(cz_cs *cs, const void *vctx)
{
    pack_ctx *c = (pack_ctx *)vctx;
    cz_bit bits[320];
    cz_bits_alloc_bytes(cs, bits, c->bytes, 40);
    cz_bits_to_bytes(c->back, bits, 40);
    cz_var v;
    cz_bits_pack_alloc(cs, &v, bits, 254);
    cz_cs_value(cs, v, &c->packed);
    return CZ_OK;
}

static void test_pack(void **state)
{
    (void)state;
    pack_ctx c;
    cz_rng_bytes(c.bytes, sizeof c.bytes);
    cz_check_report rep;
    assert_int_equal(cz_cs_check(pack_synth, &c, &rep), CZ_OK);
    assert_memory_equal(c.back, c.bytes, 40);
    /* reference: bits[i] (LE packing index) is bit 7 - i%8 of byte i/8 */
    mpz_t z, r;
    mpz_inits(z, r, NULL);
    for (int i = 253; i >= 0; i--) {
        mpz_mul_2exp(z, z, 1);
        if ((c.bytes[i / 8] >> (7 - i % 8)) & 1)
            mpz_add_ui(z, z, 1);
    }
    cz_mpz_from_limbs(r, CZ_FR_MODULUS, 4);
    mpz_mod(z, z, r);
    uint64_t want[4], got[4];
    cz_mpz_to_limbs(want, 4, z);
    cz_fr_to_raw(got, &c.packed);
    assert_memory_equal(got, want, sizeof want);
    mpz_clears(z, r, NULL);
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bool_exhaustive), cmocka_unit_test(test_bool_misc), cmocka_unit_test(test_u32),
        cmocka_unit_test(test_num_bits),        cmocka_unit_test(test_pack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
