/*
 * bellperson-exact Boolean operations, UInt32, MultiEq, SHA-256 and
 * filecoin-hashers' Sha256Function circuits (cuzk/fil_bp_sha256.h),
 * against the reference's own numbers:
 *  - bellpepper-core 0.2 boolean.rs tests: result kinds of xor/and over
 *    the six operand types, enforce_equal, sha256_ch/maj (0 constraints
 *    when all constant; tampering "ch"/"maj" breaks "ch/maj computation"),
 *    alloc_conditionally, u64_into_boolean_vec_le and
 *    field_into_allocated_bits_le known answers;
 *  - bellperson 0.27 uint32.rs tests (from_bits, xor, addmany, addmany of
 *    constants, rotr, shr, sha256_ch/maj; flipping "result bit 0" breaks
 *    the addition);
 *  - bellperson sha256.rs: test_blank_hash (0 constraints, digest of ""),
 *    test_full_block (25,840), test_full_hash (44,874),
 *    test_against_vectors (digest = native SHA-256);
 *  - rust-fil-proofs: util.rs hash_leaf_bits_circuit (45,387 and the
 *    native node value), create_label.rs test_create_label (532,025 for
 *    the 64 + 37·32-byte label message), por_circuit.rs sha256 base trees
 *    of arity 2 / 4 / 8 (272,295 / 216,258 / 250,987), from which the
 *    hash_multi_leaf_circuit counts 45,379 / 72,075 / 125,467 follow
 *    (see multi_leaf_counts);
 *  - the exact linear combinations of the small gadgets, row by row;
 *  - shape: the same recording (circuit hash) with and without values,
 *    witness generation against the shape, and a tampered witness fails.
 */
#include "testutil.h"
#include "cuzk/fil_bp_sha256.h"
#include "cuzk/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ----------------------------------------------------------------- */

typedef struct {
    uint64_t constraints, aux, inputs;
} counts;

static counts record_counts(cz_synth_fn fn, const void *ctx) {
    cz_pce *p = NULL;
    assert_int_equal(cz_pce_record(&p, fn, ctx, NULL), CZ_OK);
    counts c = { p->n_circuit_constraints, p->n_aux, p->n_inputs };
    cz_pce_free(p);
    return c;
}

static bool is_satisfied(cz_synth_fn fn, const void *ctx) {
    cz_check_report rep;
    cz_status s = cz_cs_check(fn, ctx, &rep);
    if (s != CZ_OK && s != CZ_ERR_UNSATISFIED) fail_msg("check: %s", cz_status_str(s));
    return s == CZ_OK;
}

/* Recording with and without values is the same R1CS; the witness
 * generator matches the recording and gives the recorder's values. */
static void assert_shape_stable(cz_synth_fn fn, const void *ctx) {
    cz_pce *p0 = NULL, *p1 = NULL;
    cz_witness w1, w2;
    assert_int_equal(cz_pce_record(&p0, fn, ctx, NULL), CZ_OK);
    assert_int_equal(cz_pce_record(&p1, fn, ctx, &w1), CZ_OK);
    assert_int_equal(p0->n_constraints, p1->n_constraints);
    assert_int_equal(p0->n_aux, p1->n_aux);
    assert_int_equal(p0->n_inputs, p1->n_inputs);
    assert_memory_equal(p0->circuit_hash, p1->circuit_hash, 32);
    assert_int_equal(cz_witness_generate(&w2, fn, ctx, p0), CZ_OK);
    assert_int_equal(w1.n_aux, w2.n_aux);
    assert_memory_equal(w1.aux, w2.aux, w1.n_aux * sizeof(cz_fr));
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(p0, &w2, &row), CZ_OK);
    cz_witness_free(&w1);
    cz_witness_free(&w2);
    cz_pce_free(p0);
    cz_pce_free(p1);
}

/* Flip aux `idx` (0 <-> 1, or +1 when not a bit) and run the checker with
 * that witness: it must fail; where (may be NULL) receives its path. */
static void assert_tamper_fails(cz_synth_fn fn, const void *ctx, uint64_t idx, char *where,
                                size_t wlen) {
    cz_pce *p = NULL;
    cz_witness w;
    assert_int_equal(cz_pce_record(&p, fn, ctx, &w), CZ_OK);
    assert_true(idx < w.n_aux);
    cz_fr one;
    cz_fr_from_u64(&one, 1);
    if (cz_fr_is_zero(&w.aux[idx])) w.aux[idx] = one;
    else if (cz_fr_is_one(&w.aux[idx])) cz_fr_from_u64(&w.aux[idx], 0);
    else cz_fr_add(&w.aux[idx], &w.aux[idx], &one);
    cz_check_report rep;
    assert_int_equal(cz_cs_check_witness(fn, ctx, &w, &rep), CZ_ERR_UNSATISFIED);
    assert_false(rep.satisfied);
    if (where) snprintf(where, wlen, "%s", rep.where);
    cz_witness_free(&w);
    cz_pce_free(p);
}

/* Coefficient as a small signed integer or ±2^k. */
static void coeff_str(char *buf, size_t len, const cz_fr *c) {
    cz_fr t, n;
    for (uint64_t k = 1; k <= 64; k++) {
        cz_fr_from_u64(&t, k);
        if (cz_fr_eq(c, &t)) { snprintf(buf, len, "%llu", (unsigned long long)k); return; }
        cz_fr_neg(&n, &t);
        if (cz_fr_eq(c, &n)) { snprintf(buf, len, "-%llu", (unsigned long long)k); return; }
    }
    for (unsigned k = 0; k < 256; k++) {
        if (cz_fr_eq(c, cz_fr_pow2(k))) { snprintf(buf, len, "2^%u", k); return; }
        cz_fr_neg(&n, cz_fr_pow2(k));
        if (cz_fr_eq(c, &n)) { snprintf(buf, len, "-2^%u", k); return; }
    }
    snprintf(buf, len, "?");
}

static void lc_str(char *out, size_t len, const cz_pce *p, const cz_csr *m, uint64_t row) {
    size_t o = 0;
    out[0] = 0;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        char cs[32], name[32];
        coeff_str(cs, sizeof cs, &p->coeffs[m->coef[k]]);
        cz_var v = m->col[k];
        if (v == CZ_VAR_ONE) snprintf(name, sizeof name, "one");
        else snprintf(name, sizeof name, "%c%u", cz_var_is_aux(v) ? 'a' : 'i', cz_var_index(v));
        bool neg = cs[0] == '-';
        const char *mag = neg ? cs + 1 : cs;
        const char *sep = k == m->row_ptr[row] ? (neg ? "-" : "") : (neg ? " - " : " + ");
        o += (size_t)snprintf(out + o, len - o, "%s%s%s%s", sep, strcmp(mag, "1") ? mag : "",
                              strcmp(mag, "1") ? "*" : "", name);
        if (o >= len) break;
    }
}

/* "A | B | C" of row `row`. */
static void row_str(char *out, size_t len, const cz_pce *p, uint64_t row) {
    char a[512], b[512], c[512];
    lc_str(a, sizeof a, p, &p->a, row);
    lc_str(b, sizeof b, p, &p->b, row);
    lc_str(c, sizeof c, p, &p->c, row);
    snprintf(out, len, "%s | %s | %s", a, b, c);
}

static void assert_row(cz_synth_fn fn, const void *ctx, uint64_t row, const char *expect) {
    cz_pce *p = NULL;
    char got[1600];
    assert_int_equal(cz_pce_record(&p, fn, ctx, NULL), CZ_OK);
    assert_true(row < p->n_circuit_constraints);
    row_str(got, sizeof got, p, row);
    if (strcmp(got, expect) != 0) fail_msg("row %llu: got \"%s\", want \"%s\"",
                                           (unsigned long long)row, got, expect);
    cz_pce_free(p);
}

/* ---- AllocatedBit ---------------------------------------------------------------- */

enum { OP_XOR, OP_AND, OP_AND_NOT, OP_NOR, OP_ALLOC_COND };

typedef struct {
    int op;
    bool av, bv;
    bool *out; /* result value (written by every run) */
} abit_ctx;

static cz_status abit_synth(cz_cs *cs, const void *vctx) {
    const abit_ctx *c = vctx;
    cz_bp_abit a, b, r;
    cz_cs_push_scope(cs, "a");
    cz_bp_abit_alloc(cs, &a, c->av);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "b");
    cz_bp_abit_alloc(cs, &b, c->bv);
    cz_cs_pop_scope(cs);
    switch (c->op) {
    case OP_XOR: cz_bp_abit_xor(cs, &r, &a, &b); break;
    case OP_AND: cz_bp_abit_and(cs, &r, &a, &b); break;
    case OP_AND_NOT: cz_bp_abit_and_not(cs, &r, &a, &b); break;
    case OP_NOR: cz_bp_abit_nor(cs, &r, &a, &b); break;
    default: cz_bp_abit_alloc_conditionally(cs, &r, c->av, &b); break;
    }
    if (cz_cs_has_values(cs)) *c->out = r.value;
    return CZ_OK;
}

static void test_abit_ops(void **state) {
    (void)state;
    static const char *const rows[4] = {
        "2*a0 | a1 | a0 + a1 - a2", /* (a + a)·b = a + b − c */
        "a0 | a1 | a2",
        "a0 | one - a1 | a2",
        "one - a0 | one - a1 | a2",
    };
    for (int op = OP_XOR; op <= OP_NOR; op++)
        for (int av = 0; av < 2; av++)
            for (int bv = 0; bv < 2; bv++) {
                bool out = false;
                abit_ctx c = { op, av, bv, &out };
                bool want = op == OP_XOR ? (av ^ bv) : op == OP_AND ? (av & bv)
                          : op == OP_AND_NOT ? (av & !bv) : (!av & !bv);
                assert_true(is_satisfied(abit_synth, &c));
                assert_int_equal(out, want);
                counts n = record_counts(abit_synth, &c);
                assert_int_equal(n.constraints, 3);
                assert_int_equal(n.aux, 3);
                assert_row(abit_synth, &c, 2, rows[op]);
                assert_row(abit_synth, &c, 0, "one - a0 | a0 | ");
                /* Inverting the result breaks the gadget's constraint. */
                char where[CZ_CS_PATH_MAX];
                assert_tamper_fails(abit_synth, &c, 2, where, sizeof where);
                assert_non_null(strstr(where, "constraint"));
            }
}

static void test_alloc_conditionally(void **state) {
    (void)state;
    /* (value, must_be_false) -> satisfied, as the reference's four cases. */
    static const struct { bool v, mbf, sat; } cases[] = {
        { true, false, true }, { true, true, false }, { false, false, true }, { false, true, true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool out = false;
        abit_ctx c = { OP_ALLOC_COND, cases[i].v, cases[i].mbf, &out };
        assert_int_equal(is_satisfied(abit_synth, &c), cases[i].sat);
        if (cases[i].sat) assert_int_equal(out, cases[i].v);
        assert_row(abit_synth, &c, 2, "one - a1 - a2 | a2 | ");
    }
}

/* ---- Boolean ------------------------------------------------------------------------ */

enum { T_TRUE, T_FALSE, T_ALLOC_TRUE, T_ALLOC_FALSE, T_NEG_TRUE, T_NEG_FALSE, T_COUNT };

static bool op_is_const(int t) { return t == T_TRUE || t == T_FALSE; }
static bool op_val(int t) {
    return t == T_TRUE || t == T_ALLOC_TRUE || t == T_NEG_FALSE;
}

static cz_bp_bool make_operand(cz_cs *cs, int t, const char *name) {
    if (t == T_TRUE) return cz_bp_bool_const(true);
    if (t == T_FALSE) return cz_bp_bool_const(false);
    cz_bp_abit b;
    cz_cs_push_scope(cs, "%s", name);
    cz_bp_abit_alloc(cs, &b, t == T_ALLOC_TRUE || t == T_NEG_TRUE);
    cz_cs_pop_scope(cs);
    cz_bp_bool r = cz_bp_bool_is(b);
    return (t == T_NEG_TRUE || t == T_NEG_FALSE) ? cz_bp_bool_not(r) : r;
}

enum { B_XOR, B_AND, B_CH, B_MAJ, B_EQ };

typedef struct {
    int op;
    int t[3];
    cz_bp_bool *out;
    cz_status *st;
} bool_ctx;

static cz_status bool_synth(cz_cs *cs, const void *vctx) {
    const bool_ctx *c = vctx;
    cz_bp_bool a = make_operand(cs, c->t[0], "a");
    cz_bp_bool b = make_operand(cs, c->t[1], "b");
    cz_bp_bool r = cz_bp_bool_const(false);
    cz_status st = CZ_OK;
    if (c->op == B_CH || c->op == B_MAJ) {
        cz_bp_bool cc = make_operand(cs, c->t[2], "c");
        r = c->op == B_CH ? cz_bp_bool_sha256_ch(cs, &a, &b, &cc)
                          : cz_bp_bool_sha256_maj(cs, &a, &b, &cc);
    } else if (c->op == B_XOR) {
        r = cz_bp_bool_xor(cs, &a, &b);
    } else if (c->op == B_AND) {
        r = cz_bp_bool_and(cs, &a, &b);
    } else {
        st = cz_bp_bool_enforce_equal(cs, &a, &b);
    }
    if (c->out) *c->out = r;
    if (c->st) *c->st = st;
    return CZ_OK;
}

static cz_bp_bool_kind kind_of(int t) {
    return op_is_const(t) ? CZ_BP_CONST : (t == T_NEG_TRUE || t == T_NEG_FALSE) ? CZ_BP_NOT : CZ_BP_IS;
}

static void test_bool_xor_and(void **state) {
    (void)state;
    for (int op = B_XOR; op <= B_AND; op++)
        for (int x = 0; x < T_COUNT; x++)
            for (int y = 0; y < T_COUNT; y++) {
                cz_bp_bool r;
                bool_ctx c = { op, { x, y, 0 }, &r, NULL };
                assert_true(is_satisfied(bool_synth, &c));
                bool want = op == B_XOR ? (op_val(x) ^ op_val(y)) : (op_val(x) & op_val(y));
                assert_int_equal(cz_bp_bool_value(&r), want);
                unsigned allocated = !op_is_const(x) + !op_is_const(y);
                bool both = !op_is_const(x) && !op_is_const(y);
                counts n = record_counts(bool_synth, &c);
                /* Constants short-circuit: no variable, no constraint. */
                assert_int_equal(n.constraints, allocated + (both ? 1 : 0));
                assert_int_equal(n.aux, allocated + (both ? 1 : 0));
                /* Result kinds of the reference's test_boolean_xor / _and. */
                cz_bp_bool_kind k;
                if (op == B_XOR) {
                    if (op_is_const(x) && op_is_const(y)) k = CZ_BP_CONST;
                    else if (op_is_const(x) || op_is_const(y)) {
                        int o = op_is_const(x) ? y : x, cst = op_is_const(x) ? x : y;
                        k = kind_of(o);
                        if (cst == T_TRUE) k = k == CZ_BP_IS ? CZ_BP_NOT : CZ_BP_IS;
                    } else k = kind_of(x) == kind_of(y) ? CZ_BP_IS : CZ_BP_NOT;
                } else {
                    if (x == T_FALSE || y == T_FALSE || (op_is_const(x) && op_is_const(y)))
                        k = CZ_BP_CONST;
                    else if (op_is_const(x)) k = kind_of(y);
                    else if (op_is_const(y)) k = kind_of(x);
                    else k = CZ_BP_IS;
                }
                assert_int_equal(r.kind, k);
                if (both) {
                    /* the result variable holds the (un-negated) bit */
                    char where[CZ_CS_PATH_MAX];
                    assert_tamper_fails(bool_synth, &c, 2, where, sizeof where);
                }
            }
    /* Operand order inside the constraints: the Is operand goes first. */
    bool_ctx c1 = { B_XOR, { T_NEG_TRUE, T_ALLOC_FALSE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c1, 2, "2*a1 | a0 | a0 + a1 - a2");
    bool_ctx c2 = { B_XOR, { T_ALLOC_TRUE, T_NEG_FALSE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c2, 2, "2*a0 | a1 | a0 + a1 - a2");
    bool_ctx c3 = { B_AND, { T_NEG_TRUE, T_ALLOC_FALSE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c3, 2, "a1 | one - a0 | a2"); /* and_not(is, not) */
    bool_ctx c4 = { B_AND, { T_NEG_TRUE, T_NEG_FALSE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c4, 2, "one - a0 | one - a1 | a2"); /* nor */
    bool_ctx c5 = { B_AND, { T_ALLOC_TRUE, T_ALLOC_FALSE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c5, 2, "a0 | a1 | a2");
}

static void test_enforce_equal(void **state) {
    (void)state;
    for (int x = 0; x < T_COUNT; x++)
        for (int y = 0; y < T_COUNT; y++) {
            cz_status st = CZ_OK;
            bool_ctx c = { B_EQ, { x, y, 0 }, NULL, &st };
            bool equal = op_val(x) == op_val(y);
            cz_check_report rep;
            cz_status s = cz_cs_check(bool_synth, &c, &rep);
            if (op_is_const(x) && op_is_const(y)) {
                /* two constants: an error when they differ, nothing enforced */
                assert_int_equal(st, equal ? CZ_OK : CZ_ERR_UNSATISFIED);
                assert_int_equal(s, equal ? CZ_OK : CZ_ERR_UNSATISFIED);
                if (equal) assert_int_equal(record_counts(bool_synth, &c).constraints, 0);
                continue;
            }
            assert_int_equal(s, equal ? CZ_OK : CZ_ERR_UNSATISFIED);
            unsigned allocated = !op_is_const(x) + !op_is_const(y);
            assert_int_equal(record_counts(bool_synth, &c).constraints, allocated + 1);
        }
    bool_ctx c1 = { B_EQ, { T_ALLOC_TRUE, T_NEG_TRUE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c1, 2, " |  | -one + a0 + a1"); /* a − (1 − b) */
    bool_ctx c2 = { B_EQ, { T_TRUE, T_ALLOC_TRUE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c2, 1, " |  | one - a0"); /* 1 − x */
    bool_ctx c3 = { B_EQ, { T_NEG_TRUE, T_FALSE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c3, 1, " |  | one - a0"); /* x = Not(a0) */
    bool_ctx c4 = { B_EQ, { T_NEG_TRUE, T_TRUE, 0 }, NULL, NULL };
    assert_row(bool_synth, &c4, 1, " |  | a0"); /* 1 − (1 − a0): ONE cancels */
}

static void test_sha256_ch_maj(void **state) {
    (void)state;
    for (int op = B_CH; op <= B_MAJ; op++)
        for (int x = 0; x < T_COUNT; x++)
            for (int y = 0; y < T_COUNT; y++)
                for (int z = 0; z < T_COUNT; z++) {
                    cz_bp_bool r;
                    bool_ctx c = { op, { x, y, z }, &r, NULL };
                    bool a = op_val(x), b = op_val(y), cc = op_val(z);
                    bool want = op == B_CH ? ((a & b) ^ (!a & cc))
                                           : ((a & b) ^ (a & cc) ^ (b & cc));
                    assert_true(is_satisfied(bool_synth, &c));
                    assert_int_equal(cz_bp_bool_value(&r), want);
                    unsigned allocated = !op_is_const(x) + !op_is_const(y) + !op_is_const(z);
                    counts n = record_counts(bool_synth, &c);
                    if (op_is_const(x) && op_is_const(y) && op_is_const(z)) {
                        assert_int_equal(n.constraints, 0);
                        assert_int_equal(r.kind, CZ_BP_CONST);
                    } else if (allocated == 3) {
                        /* ch: 1 constraint; maj: the b-and-c and the maj one */
                        assert_int_equal(n.constraints, 3 + (op == B_CH ? 1 : 2));
                        char where[CZ_CS_PATH_MAX];
                        assert_tamper_fails(bool_synth, &c, 3, where, sizeof where);
                        assert_non_null(strstr(where, op == B_CH ? "ch computation"
                                                                 : "maj computation"));
                    } else {
                        /* one constant: at most one Boolean::and */
                        assert_true(n.constraints <= allocated + 1);
                    }
                }
    bool_ctx ch = { B_CH, { T_ALLOC_TRUE, T_ALLOC_FALSE, T_ALLOC_TRUE }, NULL, NULL };
    assert_row(bool_synth, &ch, 3, "a1 - a2 | a0 | -a2 + a3");
    bool_ctx chn = { B_CH, { T_NEG_TRUE, T_ALLOC_FALSE, T_NEG_TRUE }, NULL, NULL };
    assert_row(bool_synth, &chn, 3, "-one + a1 + a2 | one - a0 | -one + a2 + a3");
    bool_ctx maj = { B_MAJ, { T_ALLOC_TRUE, T_ALLOC_FALSE, T_ALLOC_TRUE }, NULL, NULL };
    assert_row(bool_synth, &maj, 3, "a1 | a2 | a4"); /* bc after maj (a3) */
    assert_row(bool_synth, &maj, 4, "-a1 - a2 + 2*a4 | a0 | -a3 + a4");
    /* a = Constant(true): ch still allocates, with B = ONE */
    bool_ctx cht = { B_CH, { T_TRUE, T_ALLOC_FALSE, T_ALLOC_TRUE }, NULL, NULL };
    assert_int_equal(record_counts(bool_synth, &cht).constraints, 3);
    assert_row(bool_synth, &cht, 2, "a0 - a1 | one | -a1 + a2");
}

/* ---- bit decompositions ---------------------------------------------------------- */

typedef struct {
    bool field;
    uint64_t u;
    cz_fr f;
    bool *bits; /* 64 or 255 values */
} decomp_ctx;

static cz_status decomp_synth(cz_cs *cs, const void *vctx) {
    const decomp_ctx *c = vctx;
    if (c->field) {
        cz_bp_abit b[CZ_BP_FR_NUM_BITS];
        cz_bp_field_into_allocated_bits_le(cs, b, &c->f);
        if (cz_cs_has_values(cs))
            for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++) c->bits[i] = b[i].value;
    } else {
        cz_bp_bool b[64];
        cz_bp_u64_into_boolean_vec_le(cs, b, c->u);
        if (cz_cs_has_values(cs))
            for (unsigned i = 0; i < 64; i++) c->bits[i] = cz_bp_bool_value(&b[i]);
    }
    return CZ_OK;
}

static void test_bit_decompositions(void **state) {
    (void)state;
    bool bits[CZ_BP_FR_NUM_BITS];
    /* boolean.rs test_u64_into_boolean_vec_le */
    decomp_ctx u = { false, 17234652694787248421ull, CZ_FR_ZERO, bits };
    assert_true(is_satisfied(decomp_synth, &u));
    assert_true(bits[63 - 0] && bits[63 - 1] && bits[63 - 2] && !bits[63 - 3]);
    assert_true(bits[63 - 4] && bits[63 - 5] && bits[63 - 20] && !bits[63 - 21] && !bits[63 - 22]);
    for (unsigned i = 0; i < 64; i++) assert_int_equal(bits[i], (u.u >> i) & 1);
    assert_int_equal(record_counts(decomp_synth, &u).constraints, 64);
    /* boolean.rs test_field_into_allocated_bits_le */
    decomp_ctx f = { true, 0, CZ_FR_ZERO, bits };
    assert_int_equal(cz_fr_from_dec(&f.f, "9147677615426976802526883532204139322118074541891858"
                                          "454835346926874644257775"), CZ_OK);
    assert_true(is_satisfied(decomp_synth, &f));
    assert_true(!bits[254 - 0] && !bits[254 - 1] && bits[254 - 2] && !bits[254 - 3]);
    assert_true(bits[254 - 4] && !bits[254 - 5] && bits[254 - 20] && bits[254 - 23]);
    uint64_t l[4];
    cz_fr_to_raw(l, &f.f);
    for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++)
        assert_int_equal(bits[i], (l[i / 64] >> (i % 64)) & 1);
    counts n = record_counts(decomp_synth, &f);
    assert_int_equal(n.constraints, 255);
    assert_int_equal(n.aux, 255);
}

/* ---- UInt32 ------------------------------------------------------------------------ */

static void assert_u32_bits(const cz_bp_u32 *r, uint32_t expected) {
    assert_true(r->known);
    assert_int_equal(r->value, expected);
    for (unsigned i = 0; i < 32; i++) assert_int_equal(cz_bp_bool_value(&r->bits[i]), (expected >> i) & 1);
}

static void test_u32_bits_rot_shift(void **state) {
    (void)state;
    for (int it = 0; it < 1000; it++) {
        cz_bp_bool v[32];
        for (unsigned i = 0; i < 32; i++) v[i] = cz_bp_bool_const(cz_rng_u64() & 1);
        /* from_bits_be: v[0] is the MSB; the constant bits need no cs for values */
        cz_bp_u32 b = cz_bp_u32_from_bits_be(NULL, v);
        uint32_t want = 0;
        for (unsigned i = 0; i < 32; i++) want = (want << 1) | v[i].constant;
        assert_u32_bits(&b, want);
        cz_bp_bool back[32];
        cz_bp_u32_into_bits_be(&b, back);
        for (unsigned i = 0; i < 32; i++) {
            assert_int_equal(back[i].kind, CZ_BP_CONST);
            assert_int_equal(back[i].constant, v[i].constant);
        }
        cz_bp_u32 l = cz_bp_u32_from_bits(NULL, v);
        want = 0;
        for (unsigned i = 0; i < 32; i++) want |= (uint32_t)v[i].constant << i;
        assert_u32_bits(&l, want);
        cz_bp_u32_into_bits(&l, back);
        for (unsigned i = 0; i < 32; i++) assert_int_equal(back[i].constant, v[i].constant);
    }
    uint32_t num = (uint32_t)cz_rng_u64();
    cz_bp_u32 a = cz_bp_u32_constant(num);
    for (unsigned i = 0; i < 32; i++) {
        cz_bp_u32 r = cz_bp_u32_rotr(&a, i);
        assert_u32_bits(&r, (num >> i) | (i ? num << (32 - i) : 0));
    }
    for (int it = 0; it < 50; it++)
        for (unsigned i = 0; i < 60; i++) {
            uint32_t x = (uint32_t)cz_rng_u64();
            cz_bp_u32 c = cz_bp_u32_constant(x);
            cz_bp_u32 r = cz_bp_u32_shr(&c, i);
            assert_u32_bits(&r, x >> (i % 32)); /* wrapping_shr */
        }
}

enum { U_XOR, U_ADD, U_ADD_CONST, U_MAJ, U_CH };

typedef struct {
    int test;
    uint32_t a, b, c, d;
    cz_bp_u32 *out;
} u32_ctx;

static cz_status u32_synth(cz_cs *cs, const void *vctx) {
    const u32_ctx *t = vctx;
    cz_bp_u32 a, b, c, d, r;
    switch (t->test) {
    case U_XOR:
        cz_cs_push_scope(cs, "a_bit");
        cz_bp_u32_alloc(cs, &a, t->a);
        cz_cs_pop_scope(cs);
        b = cz_bp_u32_constant(t->b);
        cz_cs_push_scope(cs, "c_bit");
        cz_bp_u32_alloc(cs, &c, t->c);
        cz_cs_pop_scope(cs);
        cz_bp_u32_xor(cs, &r, &a, &b);
        cz_bp_u32_xor(cs, &r, &r, &c);
        break;
    case U_ADD:
    case U_ADD_CONST: {
        if (t->test == U_ADD) {
            cz_bp_u32_alloc(cs, &a, t->a);
            b = cz_bp_u32_constant(t->b);
            c = cz_bp_u32_constant(t->c);
            cz_bp_u32_alloc(cs, &d, t->d);
            cz_bp_u32_xor(cs, &r, &a, &b);
        } else {
            r = cz_bp_u32_constant(t->a);
            c = cz_bp_u32_constant(t->b);
            d = cz_bp_u32_constant(t->c);
        }
        cz_bp_multieq m;
        cz_bp_multieq_init(&m, cs);
        const cz_bp_u32 *ops[3] = { &r, &c, &d };
        cz_cs_push_scope(cs, "addition");
        cz_bp_u32_addmany(cs, &m, &r, ops, 3);
        cz_cs_pop_scope(cs);
        cz_bp_multieq_finish(&m);
        break;
    }
    default:
        cz_bp_u32_alloc(cs, &a, t->a);
        b = cz_bp_u32_constant(t->b);
        cz_bp_u32_alloc(cs, &c, t->c);
        if (t->test == U_MAJ) cz_bp_u32_sha256_maj(cs, &r, &a, &b, &c);
        else cz_bp_u32_sha256_ch(cs, &r, &a, &b, &c);
        break;
    }
    if (cz_cs_has_values(cs) && t->out) *t->out = r;
    return CZ_OK;
}

static void test_u32_ops(void **state) {
    (void)state;
    for (int it = 0; it < 40; it++) {
        cz_bp_u32 r;
        u32_ctx t = { U_XOR, (uint32_t)cz_rng_u64(), (uint32_t)cz_rng_u64(), (uint32_t)cz_rng_u64(),
                      (uint32_t)cz_rng_u64(), &r };
        assert_true(is_satisfied(u32_synth, &t));
        assert_u32_bits(&r, t.a ^ t.b ^ t.c);
        /* 64 bits allocated; xor with a constant is free; the second xor is 32 */
        assert_int_equal(record_counts(u32_synth, &t).constraints, 96);

        t.test = U_ADD_CONST;
        assert_true(is_satisfied(u32_synth, &t));
        assert_u32_bits(&r, t.a + t.b + t.c);
        for (unsigned i = 0; i < 32; i++) assert_int_equal(r.bits[i].kind, CZ_BP_CONST);
        counts n = record_counts(u32_synth, &t);
        assert_int_equal(n.constraints, 0);
        assert_int_equal(n.aux, 0);

        t.test = U_ADD;
        assert_true(is_satisfied(u32_synth, &t));
        assert_u32_bits(&r, (t.a ^ t.b) + t.c + t.d);
        for (unsigned i = 0; i < 32; i++) assert_int_equal(r.bits[i].kind, CZ_BP_IS);
        /* 64 allocations + 34 result bits + one multieq */
        n = record_counts(u32_synth, &t);
        assert_int_equal(n.constraints, 64 + 34 + 1);
        assert_int_equal(n.aux, 64 + 34);
        if (it < 5) {
            /* flipping "addition/result bit 0" breaks the packed equality */
            char where[CZ_CS_PATH_MAX];
            assert_tamper_fails(u32_synth, &t, 64, where, sizeof where);
            assert_non_null(strstr(where, "multieq"));
            assert_shape_stable(u32_synth, &t);
        }

        t.test = U_MAJ;
        assert_true(is_satisfied(u32_synth, &t));
        assert_u32_bits(&r, (t.a & t.b) ^ (t.a & t.c) ^ (t.b & t.c));
        t.test = U_CH;
        assert_true(is_satisfied(u32_synth, &t));
        assert_u32_bits(&r, (t.a & t.b) ^ (~t.a & t.c));
    }
}

/* ---- MultiEq ------------------------------------------------------------------------ */

typedef struct {
    const size_t *widths;
    size_t n;
    size_t *after; /* constraints after each enforce_equal (n), then after finish */
} meq_ctx;

static cz_status meq_synth(cz_cs *cs, const void *vctx) {
    const meq_ctx *c = vctx;
    cz_bp_multieq m;
    cz_bp_multieq_init(&m, cs);
    size_t base = 0;
    for (size_t k = 0; k < c->n; k++) {
        cz_var x, y;
        cz_fr v;
        cz_fr_from_u64(&v, 5);
        cz_cs_alloc_aux(cs, &x, &v);
        cz_cs_alloc_aux(cs, &y, &v);
        cz_lc l, r;
        cz_lc_init(&l, cs);
        cz_lc_init(&r, cs);
        cz_lc_add_var(&l, x);
        cz_lc_add_var(&r, y);
        cz_bp_multieq_enforce_equal(&m, c->widths[k], &l, &r);
        cz_lc_free(&l);
        cz_lc_free(&r);
        c->after[k] = cz_cs_num_constraints(cs) - base;
    }
    cz_bp_multieq_finish(&m);
    c->after[c->n] = cz_cs_num_constraints(cs) - base;
    return CZ_OK;
}

static void test_multieq(void **state) {
    (void)state;
    size_t after[16];
    /* 33-bit equalities: 7 fit under CAPACITY = 254 (231), the 8th flushes */
    size_t w33[9] = { 33, 33, 33, 33, 33, 33, 33, 33, 33 };
    meq_ctx c = { w33, 9, after };
    (void)record_counts(meq_synth, &c);
    for (size_t k = 0; k < 7; k++) assert_int_equal(after[k], 0);
    assert_int_equal(after[7], 1);
    assert_int_equal(after[8], 1);
    assert_int_equal(after[9], 2); /* Drop flushes the rest */
    /* reaching exactly 254 flushes first (CAPACITY <= used + bits) */
    size_t edge[3] = { 221, 33, 1 };
    meq_ctx e = { edge, 3, after };
    (void)record_counts(meq_synth, &e);
    assert_int_equal(after[0], 0);
    assert_int_equal(after[1], 1);
    assert_int_equal(after[2], 1);
    assert_int_equal(after[3], 2);
    size_t edge2[2] = { 220, 33 };
    meq_ctx e2 = { edge2, 2, after };
    (void)record_counts(meq_synth, &e2);
    assert_int_equal(after[1], 0);
    assert_int_equal(after[2], 1);
    /* packing: lhs_k and rhs_k shifted by the bits used before them */
    size_t w10[3] = { 10, 20, 30 };
    meq_ctx p = { w10, 3, after };
    assert_row(meq_synth, &p, 0, "a0 + 2^10*a2 + 2^30*a4 | one | a1 + 2^10*a3 + 2^30*a5");
    /* nothing pending: no constraint on finish */
    meq_ctx z = { w10, 0, after };
    assert_int_equal(record_counts(meq_synth, &z).constraints, 0);
    assert_true(is_satisfied(meq_synth, &p));
}

/* ---- SHA-256 ----------------------------------------------------------------------- */

enum { S_BLANK, S_BLOCK, S_HASH, S_LABEL, S_LEAF_BITS, S_HASH2, S_LEAF, S_MULTI };

typedef struct {
    int kind;
    const uint8_t *msg; /* message bytes / leaf reprs (LE, 32 each) */
    size_t len;         /* bytes; S_MULTI: number of leaves */
    uint8_t *digest;    /* out (S_BLANK, S_BLOCK, S_HASH) */
    cz_fr *num;         /* out (hash to Fr) */
} sha_ctx;

/* Allocate bits of bytes MSB-first within each byte (bytes_into_boolean_vec_be). */
static void alloc_bytes_be(cz_cs *cs, cz_bp_bool *out, const uint8_t *bytes, size_t n) {
    for (size_t i = 0; i < 8 * n; i++) {
        cz_bp_abit b;
        cz_bp_abit_alloc(cs, &b, (bytes[i / 8] >> (7 - i % 8)) & 1);
        out[i] = cz_bp_bool_is(b);
    }
}

static void digest_from_bits(uint8_t out[32], const cz_bp_bool bits[256]) {
    memset(out, 0, 32);
    for (unsigned i = 0; i < 256; i++)
        if (cz_bp_bool_value(&bits[i])) out[i / 8] |= (uint8_t)(0x80u >> (i % 8));
}

static cz_status sha_synth(cz_cs *cs, const void *vctx) {
    const sha_ctx *c = vctx;
    cz_bp_bool dig[256];
    cz_bp_num res;
    cz_status s = CZ_OK;
    bool want_digest = false;
    switch (c->kind) {
    case S_BLANK: {
        cz_bp_bool in[512];
        for (unsigned i = 0; i < 512; i++) in[i] = cz_bp_bool_const(i == 0);
        s = cz_bp_sha256_block_no_padding(cs, dig, in);
        want_digest = true;
        break;
    }
    case S_BLOCK: {
        cz_bp_bool in[512];
        alloc_bytes_be(cs, in, c->msg, 64);
        cz_cs_push_scope(cs, "sha256");
        s = cz_bp_sha256_block_no_padding(cs, dig, in);
        cz_cs_pop_scope(cs);
        want_digest = true;
        break;
    }
    case S_HASH: {
        cz_bp_bool *in = malloc((8 * c->len + 1) * sizeof *in);
        if (!in) return CZ_ERR_NOMEM;
        alloc_bytes_be(cs, in, c->msg, c->len);
        s = cz_bp_sha256(cs, dig, in, 8 * c->len);
        free(in);
        want_digest = true;
        break;
    }
    case S_LABEL: {
        /* create_label.rs test_create_label: msg = id (32) ‖ 37 parents
         * (32 each); layer 3 and node 22 are constants. Parents are
         * allocated first, then the id, as the reference test does. */
        size_t nbits = (1 + 1 + 37) * 256;
        cz_bp_bool *in = malloc(nbits * sizeof *in);
        if (!in) return CZ_ERR_NOMEM;
        for (unsigned p = 0; p < 37; p++) {
            cz_cs_push_scope(cs, "parents %u", p);
            alloc_bytes_be(cs, in + 512 + 256 * p, c->msg + 32 + 32 * p, 32);
            cz_cs_pop_scope(cs);
        }
        cz_cs_push_scope(cs, "id");
        alloc_bytes_be(cs, in, c->msg, 32);
        cz_cs_pop_scope(cs);
        cz_bp_u32 layer = cz_bp_u32_constant(3);
        cz_bp_u32_into_bits_be(&layer, in + 256);
        for (unsigned i = 0; i < 64; i++) in[288 + i] = cz_bp_bool_const(((22ull >> (63 - i)) & 1) != 0);
        for (unsigned i = 352; i < 512; i++) in[i] = cz_bp_bool_const(false);
        cz_cs_push_scope(cs, "create_label");
        s = cz_fil_sha256_hash_circuit(cs, &res, in, nbits);
        cz_cs_pop_scope(cs);
        free(in);
        break;
    }
    case S_LEAF_BITS: {
        /* util.rs hash_leaf_bits_circuit: bytes_into_boolean_vec (LSB first) */
        cz_bp_bool lr[512];
        for (unsigned i = 0; i < 512; i++) {
            cz_bp_abit b;
            cz_bp_abit_alloc(cs, &b, (c->msg[i / 8] >> (i % 8)) & 1);
            lr[i] = cz_bp_bool_is(b);
        }
        s = cz_fil_sha256_hash_leaf_bits_circuit(cs, &res, lr, 256, lr + 256, 256);
        break;
    }
    default: {
        size_t n = c->kind == S_MULTI ? c->len : 2;
        cz_bp_num nums[16];
        for (size_t i = 0; i < n; i++) {
            cz_fr v;
            assert_int_equal(cz_fr_from_bytes_le(&v, c->msg + 32 * i), CZ_OK);
            cz_bp_num_alloc(cs, &nums[i], &v);
        }
        if (c->kind == S_HASH2) s = cz_fil_sha256_hash2_circuit(cs, &res, &nums[0], &nums[1]);
        else if (c->kind == S_LEAF) s = cz_fil_sha256_hash_leaf_circuit(cs, &res, &nums[0], &nums[1]);
        else s = cz_fil_sha256_hash_multi_leaf_circuit(cs, &res, nums, n);
        break;
    }
    }
    if (s != CZ_OK) return s;
    if (cz_cs_has_values(cs)) {
        if (want_digest && c->digest) digest_from_bits(c->digest, dig);
        if (!want_digest && c->num) *c->num = res.value;
    }
    return CZ_OK;
}

/* Filecoin's Sha256Domain of a digest: top two bits cleared, read as LE Fr. */
static void trimmed_fr(cz_fr *out, const uint8_t *data, size_t len) {
    uint8_t d[32];
    cz_sha256(d, data, len);
    d[31] &= 0x3f;
    assert_int_equal(cz_fr_from_bytes_le(out, d), CZ_OK);
}

static void test_sha256_blank(void **state) {
    (void)state;
    uint8_t d[32];
    static const uint8_t empty[32] = { 0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4,
                                       0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b,
                                       0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55 };
    sha_ctx c = { S_BLANK, NULL, 0, d, NULL };
    assert_true(is_satisfied(sha_synth, &c));
    assert_memory_equal(d, empty, 32);
    counts n = record_counts(sha_synth, &c);
    assert_int_equal(n.constraints, 0); /* test_blank_hash */
    assert_int_equal(n.aux, 0);
    /* sha256 of the empty message: all constants too */
    sha_ctx h = { S_HASH, (const uint8_t *)"", 0, d, NULL };
    assert_true(is_satisfied(sha_synth, &h));
    assert_memory_equal(d, empty, 32);
    assert_int_equal(record_counts(sha_synth, &h).constraints, 0);
}

static void test_sha256_full_block(void **state) {
    (void)state;
    uint8_t msg[64], d[32], want[32];
    cz_rng_bytes(msg, sizeof msg);
    sha_ctx c = { S_BLOCK, msg, 64, d, NULL };
    assert_true(is_satisfied(sha_synth, &c));
    uint32_t st[8];
    memcpy(st, CZ_SHA256_IV, sizeof st);
    cz_sha256_compress(st, msg);
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 4; j++) want[4 * i + j] = (uint8_t)(st[i] >> (24 - 8 * j));
    assert_memory_equal(d, want, 32);
    counts n = record_counts(sha_synth, &c);
    assert_int_equal(n.constraints - 512, 25840); /* test_full_block */
    assert_int_equal(n.inputs, 1);
    assert_shape_stable(sha_synth, &c);
    /* a message bit, a schedule sum bit and a round result bit */
    assert_tamper_fails(sha_synth, &c, 7, NULL, 0);
    assert_tamper_fails(sha_synth, &c, 512 + 200, NULL, 0);
    assert_tamper_fails(sha_synth, &c, n.aux - 3, NULL, 0);

    /* sha256 of 512 allocated bits: test_full_hash */
    sha_ctx h = { S_HASH, msg, 64, d, NULL };
    assert_true(is_satisfied(sha_synth, &h));
    cz_sha256(want, msg, 64);
    assert_memory_equal(d, want, 32);
    assert_int_equal(record_counts(sha_synth, &h).constraints - 512, 44874);
}

static void test_sha256_vectors(void **state) {
    (void)state;
    /* test_against_vectors' lengths 0..31 and 32..255 step 8, a subset
     * covering every padding case (the length field in the first or a
     * new block) */
    static const size_t lens[] = { 0, 1, 2, 3, 7, 8, 31, 32, 48, 55, 56, 63, 64, 72, 112, 119, 120,
                                   128, 200, 255 };
    uint8_t msg[256], d[32], want[32];
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        cz_rng_bytes(msg, lens[k]);
        sha_ctx c = { S_HASH, msg, lens[k], d, NULL };
        assert_true(is_satisfied(sha_synth, &c));
        cz_sha256(want, msg, lens[k]);
        assert_memory_equal(d, want, 32);
    }
}

static void test_sha256_label(void **state) {
    (void)state;
    /* create_label.rs test_create_label: 532,025 constraints */
    uint8_t msg[32 + 37 * 32], full[64 + 37 * 32];
    cz_rng_bytes(msg, sizeof msg);
    cz_fr got, want;
    sha_ctx c = { S_LABEL, msg, sizeof msg, NULL, &got };
    assert_true(is_satisfied(sha_synth, &c));
    /* native: id ‖ layer (BE u32) ‖ node (BE u64) ‖ zeros to 64 ‖ parents */
    memset(full, 0, sizeof full);
    memcpy(full, msg, 32);
    full[35] = 3;
    full[43] = 22;
    memcpy(full + 64, msg + 32, 37 * 32);
    trimmed_fr(&want, full, sizeof full);
    assert_true(cz_fr_eq(&got, &want));
    counts n = record_counts(sha_synth, &c);
    assert_int_equal(n.constraints, 532025);
}

static void test_hash_leaf_bits(void **state) {
    (void)state;
    /* util.rs hash_leaf_bits_circuit: 45,387 with the 512 allocations, value
     * = Sha256Function::node(left, right) */
    uint8_t lr[64];
    cz_fr l, r, got, want;
    cz_rng_fr(&l);
    cz_rng_fr(&r);
    cz_fr_to_bytes_le(lr, &l);
    cz_fr_to_bytes_le(lr + 32, &r);
    sha_ctx c = { S_LEAF_BITS, lr, 64, NULL, &got };
    assert_true(is_satisfied(sha_synth, &c));
    trimmed_fr(&want, lr, 64);
    assert_true(cz_fr_eq(&got, &want));
    assert_int_equal(record_counts(sha_synth, &c).constraints, 45387);
}

static void test_hash2_and_leaf(void **state) {
    (void)state;
    uint8_t ab[64];
    cz_fr a, b, got, want;
    cz_rng_fr(&a);
    cz_rng_fr(&b);
    cz_fr_to_bytes_le(ab, &a);
    cz_fr_to_bytes_le(ab + 32, &b);
    trimmed_fr(&want, ab, 64);
    for (int kind = S_HASH2; kind <= S_LEAF; kind++) {
        sha_ctx c = { kind, ab, 2, NULL, &got };
        assert_true(is_satisfied(sha_synth, &c));
        assert_true(cz_fr_eq(&got, &want));
        counts n = record_counts(sha_synth, &c);
        assert_int_equal(n.constraints, 45379);
        assert_int_equal(n.inputs, 1);
    }
    sha_ctx c = { S_HASH2, ab, 2, NULL, &got };
    assert_shape_stable(sha_synth, &c);
    /* the two nums, then a's 255 bits: a bit of a breaks the unpacking */
    char where[CZ_CS_PATH_MAX];
    assert_tamper_fails(sha_synth, &c, 2 + 10, where, sizeof where);
    /* the packed output (the last aux) breaks the packing constraint */
    counts n = record_counts(sha_synth, &c);
    assert_tamper_fails(sha_synth, &c, n.aux - 1, where, sizeof where);
    assert_non_null(strstr(where, "packing constraint"));
}

/* por_circuit.rs test_por_circuit_sha256_base_{2,4,8} (64 leaves, public
 * root): 272,295 / 216,258 / 250,987 constraints = 3 (path packing, root
 * equality, root inputize) + levels × (index bits + insert + hash), with
 * levels 6 / 3 / 2, index bits 1 / 2 / 3 and insert 2 / 8 / 22 constraints
 * (insertion.rs test_insert). */
static void test_multi_leaf_counts(void **state) {
    (void)state;
    static const struct { size_t arity, levels, index_bits, insert; uint64_t por; } t[] = {
        { 2, 6, 1, 2, 272295 }, { 4, 3, 2, 8, 216258 }, { 8, 2, 3, 22, 250987 },
    };
    for (size_t k = 0; k < 3; k++) {
        uint8_t leaves[8 * 32];
        for (size_t i = 0; i < t[k].arity; i++) {
            cz_fr v;
            cz_rng_fr(&v);
            cz_fr_to_bytes_le(leaves + 32 * i, &v);
        }
        cz_fr got, want;
        sha_ctx c = { S_MULTI, leaves, t[k].arity, NULL, &got };
        counts n = record_counts(sha_synth, &c);
        uint64_t hash = (t[k].por - 3) / t[k].levels - t[k].index_bits - t[k].insert;
        assert_int_equal((t[k].por - 3) % t[k].levels, 0);
        assert_int_equal(n.constraints, hash);
        assert_true(is_satisfied(sha_synth, &c));
        trimmed_fr(&want, leaves, 32 * t[k].arity);
        assert_true(cz_fr_eq(&got, &want));
    }
    assert_int_equal((272295 - 3) / 6 - 1 - 2, 45379);
    assert_int_equal((216258 - 3) / 3 - 2 - 8, 72075);
    assert_int_equal((250987 - 3) / 2 - 3 - 22, 125467);
}

static cz_status bad_len_synth(cz_cs *cs, const void *vctx) {
    (void)vctx;
    cz_bp_bool in[7], out[256];
    for (unsigned i = 0; i < 7; i++) in[i] = cz_bp_bool_const(false);
    cz_status s = cz_bp_sha256(cs, out, in, 7);
    assert_int_equal(s, CZ_ERR_INVALID_ARG);
    return s;
}

static cz_status bad_addmany_synth(cz_cs *cs, const void *vctx) {
    (void)vctx;
    cz_bp_u32 x = cz_bp_u32_constant(1), r;
    const cz_bp_u32 *ops[1] = { &x };
    cz_bp_multieq m;
    cz_bp_multieq_init(&m, cs);
    cz_bp_u32_addmany(cs, &m, &r, ops, 1);
    cz_bp_multieq_finish(&m);
    return CZ_OK;
}

static void test_errors(void **state) {
    (void)state;
    cz_check_report rep;
    /* sha256 takes whole bytes only; addmany 2..10 operands */
    assert_int_equal(cz_cs_check(bad_len_synth, NULL, &rep), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_cs_check(bad_addmany_synth, NULL, &rep), CZ_ERR_INVALID_ARG);
    cz_pce *p = NULL;
    assert_int_equal(cz_pce_record(&p, bad_len_synth, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_null(p);
}

int main(void) {
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abit_ops),
        cmocka_unit_test(test_alloc_conditionally),
        cmocka_unit_test(test_bool_xor_and),
        cmocka_unit_test(test_enforce_equal),
        cmocka_unit_test(test_sha256_ch_maj),
        cmocka_unit_test(test_bit_decompositions),
        cmocka_unit_test(test_u32_bits_rot_shift),
        cmocka_unit_test(test_u32_ops),
        cmocka_unit_test(test_multieq),
        cmocka_unit_test(test_sha256_blank),
        cmocka_unit_test(test_sha256_full_block),
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_sha256_label),
        cmocka_unit_test(test_hash_leaf_bits),
        cmocka_unit_test(test_hash2_and_leaf),
        cmocka_unit_test(test_multi_leaf_counts),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
