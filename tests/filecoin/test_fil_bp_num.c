/*
 * bellperson-exact number gadgets (cuzk/fil_bp_num.h) against the
 * reference's own numbers:
 *  - neptune 11 circuit.rs test_poseidon_hash: constraint counts 311, 377,
 *    505, 761, 1009, 1385 (Standard) and 367 .. 1445 (Strengthened), its
 *    count formula, satisfaction, circuit == HashMode::Correct;
 *  - neptune's hash_values known answers (tests/vectors/filecoin/
 *    neptune-kats.json) computed through the circuit, 7 arities × 2
 *    strengths;
 *  - storage-proofs-porep circuit/hash.rs: hash2_circuit 311 constraints,
 *    hash_single_column(11) 598, outputs == the native hashes;
 *  - filecoin-hashers test_hash_md_circuit: 71 × ONE, 2770 constraints and
 *    the test_hash_md known answer;
 *  - storage-proofs-core insertion.rs test_select (size − 1 constraints)
 *    and test_insert (2, 8, 22, 240 constraints), constraint.rs add/sub,
 *    uint64.rs from_bits(_be);
 *  - bellpepper-core num.rs tests (to_bits_le, mul, square,
 *    conditionally_reverse, assert_nonzero) and bellperson multipack.rs
 *    test_multipacking (inputs == compute_multipacking);
 *  - shape: the recording with and without values is identical (same
 *    circuit hash), and the witness generator agrees with it.
 */
#include "testutil.h"
#include "cuzk/fil_bp_num.h"
#include "cuzk/fil_poseidon.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------- */

static void assert_fr_eq(const cz_fr *a, const cz_fr *b)
{
    if (!cz_fr_eq(a, b)) {
        char ha[67], hb[67];
        cz_fr_to_hex(ha, a);
        cz_fr_to_hex(hb, b);
        fail_msg("got %s, expected %s", ha, hb);
    }
}

static json_t *kats(void)
{
    static json_t *j;
    if (!j) {
        size_t len;
        uint8_t *buf = cz_read_file(cz_vector_path("filecoin/neptune-kats.json"), &len);
        json_error_t e;
        j = json_loadb((const char *)buf, len, 0, &e);
        free(buf);
        if (!j)
            fail_msg("neptune-kats.json: %s", e.text);
    }
    return j;
}

static void fr_from_limbs_json(cz_fr *r, json_t *arr)
{
    assert_true(json_is_array(arr));
    uint64_t l[4];
    for (size_t i = 0; i < 4; i++)
        l[i] = strtoull(json_string_value(json_array_get(arr, i)), NULL, 16);
    assert_int_equal(cz_fr_from_raw(r, l), CZ_OK);
}

typedef struct {
    uint64_t constraints; /* circuit's own */
    uint64_t inputs;      /* with ONE */
    uint64_t aux;
} counts;

/* Records synth with and without values: both must succeed with the same
 * circuit hash; the witness generator must agree with the shape; the
 * checker must accept. Returns the counts; *w_out (optional) receives the
 * recorded assignment. */
static counts record_check(cz_synth_fn synth, const void *ctx, cz_witness *w_out)
{
    cz_pce *shape = NULL, *valued = NULL;
    cz_witness w;
    memset(&w, 0, sizeof w);
    assert_int_equal(cz_pce_record(&shape, synth, ctx, NULL), CZ_OK);
    assert_int_equal(cz_pce_record(&valued, synth, ctx, &w), CZ_OK);
    assert_memory_equal(shape->circuit_hash, valued->circuit_hash, 32);
    cz_witness w2;
    assert_int_equal(cz_witness_generate(&w2, synth, ctx, shape), CZ_OK);
    assert_int_equal(w2.n_aux, w.n_aux);
    assert_memory_equal(w2.aux, w.aux, w.n_aux * sizeof(cz_fr));
    assert_memory_equal(w2.inputs, w.inputs, w.n_inputs * sizeof(cz_fr));
    cz_witness_free(&w2);
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(shape, &w, &row), CZ_OK);
    cz_check_report rep;
    cz_status st = cz_cs_check(synth, ctx, &rep);
    if (st != CZ_OK)
        fail_msg("checker: %s at %s", cz_status_str(st), rep.where);
    counts k = {shape->n_circuit_constraints, shape->n_inputs, shape->n_aux};
    cz_pce_free(shape);
    cz_pce_free(valued);
    if (w_out)
        *w_out = w;
    else
        cz_witness_free(&w);
    return k;
}

/* ---- Poseidon -------------------------------------------------------------- */

enum { P_GENERIC, P_HASH2, P_MULTI, P_COLUMN, P_MD };

typedef struct {
    int which;
    const cz_neptune_constants *c; /* P_GENERIC */
    unsigned n;                    /* inputs allocated */
    cz_fr in[80];
    cz_fr *out;                    /* the result's value (values modes) */
} pctx;

static cz_status pos_synth(cz_cs *cs, const void *vctx)
{
    const pctx *x = vctx;
    cz_bp_num nums[80], out;
    for (unsigned i = 0; i < x->n; i++) {
        cz_cs_push_scope(cs, "data %u", i);
        cz_bp_num_alloc(cs, &nums[i], &x->in[i]);
        cz_cs_pop_scope(cs);
    }
    switch (x->which) {
    case P_GENERIC: cz_bp_poseidon_hash(cs, &out, nums, x->c); break;
    case P_HASH2: cz_bp_poseidon_hash2(cs, &out, &nums[0], &nums[1]); break;
    case P_MULTI: cz_bp_poseidon_hash_multi_leaf(cs, &out, nums, x->n); break;
    case P_COLUMN: cz_bp_hash_single_column(cs, &out, nums, x->n); break;
    default: cz_bp_poseidon_hash_md(cs, &out, nums, x->n); break;
    }
    if (cz_cs_has_values(cs))
        *x->out = out.value;
    return CZ_OK;
}

/* neptune circuit.rs test_poseidon_hash */
static void test_poseidon_counts(void **state)
{
    (void)state;
    static const unsigned ar[6] = {2, 4, 8, 16, 24, 36};
    static const uint64_t std_c[6] = {311, 377, 505, 761, 1009, 1385};
    static const uint64_t str_c[6] = {367, 433, 565, 821, 1069, 1445};
    for (int s = 0; s < 2; s++) {
        for (int a = 0; a < 6; a++) {
            const cz_neptune_constants *c = cz_neptune_constants_get_strength(ar[a], (cz_neptune_strength)s);
            assert_non_null(c);
            cz_fr got;
            pctx x = {.which = P_GENERIC, .c = c, .n = ar[a], .out = &got};
            for (unsigned i = 0; i < x.n; i++)
                cz_rng_fr(&x.in[i]);
            counts k = record_check(pos_synth, &x, NULL);
            uint64_t t = ar[a] + 1;
            uint64_t sboxes = t * c->full_rounds + c->partial_rounds - 1;
            uint64_t formula = 3 * sboxes + (t * c->full_rounds + c->partial_rounds - ar[a]);
            assert_int_equal(k.constraints, formula);
            assert_int_equal(k.constraints, s ? str_c[a] : std_c[a]);
            assert_int_equal(k.aux, ar[a] + k.constraints); /* one aux per constraint */
            assert_int_equal(k.inputs, 1);
            cz_fr want, want2;
            cz_neptune_hash_plain(&want, c, x.in);
            cz_neptune_hash(&want2, c, x.in);
            assert_fr_eq(&got, &want);
            assert_fr_eq(&got, &want2);
        }
    }
}

/* neptune poseidon.rs hash_values: MerkleTree hash of [0 .. arity − 1],
 * here through the circuit. */
static void test_poseidon_kats(void **state)
{
    (void)state;
    static const unsigned ar[7] = {2, 4, 8, 11, 16, 24, 36};
    const char *sname[2] = {"standard", "strengthened"};
    json_t *merkle = json_object_get(json_object_get(kats(), "neptune_hash_values"), "merkle");
    for (int s = 0; s < 2; s++) {
        for (int a = 0; a < 7; a++) {
            char key[8];
            snprintf(key, sizeof key, "%u", ar[a]);
            cz_fr got, want;
            pctx x = {.which = P_GENERIC, .n = ar[a], .out = &got};
            x.c = cz_neptune_constants_get_strength(ar[a], (cz_neptune_strength)s);
            assert_non_null(x.c);
            for (unsigned i = 0; i < x.n; i++)
                cz_fr_from_u64(&x.in[i], i);
            cz_check_report rep;
            assert_int_equal(cz_cs_check(pos_synth, &x, &rep), CZ_OK);
            fr_from_limbs_json(&want, json_object_get(json_object_get(merkle, sname[s]), key));
            assert_fr_eq(&got, &want);
        }
    }
}

/* porep circuit/hash.rs test_hash2_circuit and test_hash_single_column_circuit */
static void test_hash2_and_column(void **state)
{
    (void)state;
    for (int it = 0; it < 10; it++) {
        cz_fr got;
        pctx x = {.which = P_HASH2, .n = 2, .out = &got};
        cz_rng_fr(&x.in[0]);
        cz_rng_fr(&x.in[1]);
        counts k = record_check(pos_synth, &x, NULL);
        assert_int_equal(k.constraints, 311);
        cz_fil_domain da, db, dout;
        cz_fil_domain_from_fr(&da, &x.in[0]);
        cz_fil_domain_from_fr(&db, &x.in[1]);
        assert_int_equal(cz_fil_poseidon_hash2(&dout, &da, &db), CZ_OK);
        cz_fr want;
        assert_int_equal(cz_fil_domain_to_fr(&want, &dout), CZ_OK);
        assert_fr_eq(&got, &want);
    }
    static const unsigned ns[2] = {2, 11};
    static const uint64_t nc[2] = {311, 598};
    for (int i = 0; i < 2; i++) {
        cz_fr got, want;
        pctx x = {.which = P_COLUMN, .n = ns[i], .out = &got};
        cz_fr v;
        cz_rng_fr(&v);
        for (unsigned j = 0; j < x.n; j++)
            x.in[j] = i ? v : (cz_rng_fr(&v), v); /* the reference test: 11 equal values */
        counts k = record_check(pos_synth, &x, NULL);
        assert_int_equal(k.constraints, nc[i]);
        assert_int_equal(cz_fil_hash_single_column(&want, x.in, x.n), CZ_OK);
        assert_fr_eq(&got, &want);
    }
    /* unsupported column size: the cs fails */
    cz_fr got;
    pctx bad = {.which = P_COLUMN, .n = 3, .out = &got};
    cz_pce *p = NULL;
    assert_int_equal(cz_pce_record(&p, pos_synth, &bad, NULL), CZ_ERR_INVALID_ARG);
    assert_null(p);
}

/* hash_multi_leaf_circuit == PoseidonFunction::multi_node for the tree
 * arities. */
static void test_multi_leaf(void **state)
{
    (void)state;
    static const unsigned ar[4] = {2, 4, 8, 16};
    static const uint64_t nc[4] = {311, 377, 505, 761};
    for (int a = 0; a < 4; a++) {
        cz_fr got, want;
        pctx x = {.which = P_MULTI, .n = ar[a], .out = &got};
        cz_fil_domain d[16], dout;
        for (unsigned i = 0; i < x.n; i++) {
            cz_rng_fr(&x.in[i]);
            cz_fil_domain_from_fr(&d[i], &x.in[i]);
        }
        counts k = record_check(pos_synth, &x, NULL);
        assert_int_equal(k.constraints, nc[a]);
        assert_int_equal(cz_fil_poseidon_hash_node(&dout, d, x.n), CZ_OK);
        assert_int_equal(cz_fil_domain_to_fr(&want, &dout), CZ_OK);
        assert_fr_eq(&got, &want);
    }
}

/* filecoin-hashers test_hash_md_circuit */
static void test_hash_md(void **state)
{
    (void)state;
    cz_fr got, want;
    pctx x = {.which = P_MD, .n = 71, .out = &got};
    for (unsigned i = 0; i < 71; i++)
        x.in[i] = CZ_FR_ONE;
    counts k = record_check(pos_synth, &x, NULL);
    assert_int_equal(k.constraints, 2770);
    fr_from_limbs_json(&want, json_object_get(json_object_get(json_object_get(kats(), "filecoin_hashers"),
                                                              "hash_md_71_ones"), "result"));
    assert_fr_eq(&got, &want);
    /* random lengths against the native hash_md */
    static const unsigned ns[3] = {2, 36, 37};
    for (int i = 0; i < 3; i++) {
        pctx y = {.which = P_MD, .n = ns[i], .out = &got};
        cz_fil_domain d[40], dout;
        for (unsigned j = 0; j < y.n; j++) {
            cz_rng_fr(&y.in[j]);
            cz_fil_domain_from_fr(&d[j], &y.in[j]);
        }
        counts km = record_check(pos_synth, &y, NULL);
        assert_int_equal(km.constraints, ns[i] <= 36 ? 1385 : 2770);
        assert_int_equal(cz_fil_poseidon_hash_md(&dout, d, y.n), CZ_OK);
        assert_int_equal(cz_fil_domain_to_fr(&want, &dout), CZ_OK);
        assert_fr_eq(&got, &want);
    }
}

/* A tampered aux value anywhere in the hash is caught. */
static void test_poseidon_tamper(void **state)
{
    (void)state;
    cz_fr got;
    pctx x = {.which = P_MULTI, .n = 8, .out = &got};
    for (unsigned i = 0; i < 8; i++)
        cz_rng_fr(&x.in[i]);
    cz_witness w;
    counts k = record_check(pos_synth, &x, &w);
    for (int it = 0; it < 20; it++) {
        size_t idx = 8 + cz_rng_u64() % (k.aux - 8); /* not the free inputs */
        cz_fr save = w.aux[idx];
        cz_fr_add(&w.aux[idx], &w.aux[idx], &CZ_FR_ONE);
        cz_check_report rep;
        assert_int_equal(cz_cs_check_witness(pos_synth, &x, &w, &rep), CZ_ERR_UNSATISFIED);
        w.aux[idx] = save;
    }
    assert_int_equal(cz_cs_check_witness(pos_synth, &x, &w, NULL), CZ_OK);
    cz_witness_free(&w);
}

/* ---- insertion.rs ------------------------------------------------------------ */

typedef struct {
    int insert; /* 0: select, 1: insert */
    unsigned log_size, index;
    cz_fr el[16], element;
    cz_fr out[16];
    uint64_t pre_constraints;
} ictx;

static cz_status ins_synth(cz_cs *cs, const void *vctx)
{
    ictx *x = (ictx *)vctx;
    unsigned size = 1u << x->log_size;
    unsigned nel = x->insert ? size - 1 : size;
    cz_bp_num el[16], element, out[16];
    for (unsigned i = 0; i < nel; i++)
        cz_bp_num_alloc(cs, &el[i], &x->el[i]);
    if (x->insert)
        cz_bp_num_alloc(cs, &element, &x->element);
    cz_bp_bool bits[4];
    for (unsigned i = 0; i < x->log_size; i++) {
        cz_bp_abit b;
        cz_bp_abit_alloc(cs, &b, (x->index >> i) & 1);
        bits[i] = cz_bp_bool_is(b);
    }
    x->pre_constraints = cz_cs_num_constraints(cs);
    if (x->insert) {
        cz_bp_insert(cs, out, &element, bits, x->log_size, el);
    } else {
        cz_bp_select(cs, &out[0], el, bits, x->log_size);
        size = 1;
    }
    if (cz_cs_has_values(cs))
        for (unsigned i = 0; i < size; i++)
            x->out[i] = out[i].value;
    return CZ_OK;
}

static void test_select(void **state)
{
    (void)state;
    for (unsigned log_size = 1; log_size < 5; log_size++) {
        unsigned size = 1u << log_size;
        for (unsigned index = 0; index < size; index++) {
            ictx x = {.insert = 0, .log_size = log_size, .index = index};
            for (unsigned i = 0; i < size; i++)
                cz_rng_fr(&x.el[i]);
            counts k = record_check(ins_synth, &x, NULL);
            assert_int_equal(x.pre_constraints, log_size);
            assert_int_equal(k.constraints - x.pre_constraints, size - 1);
            assert_fr_eq(&x.out[0], &x.el[index]);
        }
    }
}

static void test_insert(void **state)
{
    (void)state;
    for (unsigned log_size = 1; log_size <= 4; log_size++) {
        unsigned size = 1u << log_size;
        uint64_t expected = size == 8 ? 22 : size == 4 ? 8 : size * (size - 1);
        for (unsigned index = 0; index < size; index++) {
            ictx x = {.insert = 1, .log_size = log_size, .index = index};
            for (unsigned i = 0; i + 1 < size; i++)
                cz_rng_fr(&x.el[i]);
            cz_rng_fr(&x.element);
            counts k = record_check(ins_synth, &x, NULL);
            assert_int_equal(x.pre_constraints, log_size);
            assert_int_equal(k.constraints - x.pre_constraints, expected);
            for (unsigned i = 0, j = 0; i < size; i++) {
                if (i == index)
                    assert_fr_eq(&x.out[i], &x.element);
                else
                    assert_fr_eq(&x.out[i], &x.el[j++]);
            }
        }
    }
}

/* ---- AllocatedNum operations, constraint.rs, encode.rs, Root ---------------- */

typedef struct {
    int op;
    cz_fr a, b;
    bool cond;
    cz_fr r1, r2;
} nctx;

enum { OP_ADD, OP_SUB, OP_MUL, OP_SQUARE, OP_REV, OP_NONZERO, OP_EQUAL, OP_ENCODE, OP_DECODE, OP_ROOT };

static cz_status num_synth(cz_cs *cs, const void *vctx)
{
    nctx *x = (nctx *)vctx;
    cz_bp_num a, b, r1 = {0, CZ_FR_ZERO}, r2 = {0, CZ_FR_ZERO};
    cz_cs_push_scope(cs, "a");
    cz_bp_num_alloc(cs, &a, &x->a);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "b");
    cz_bp_num_alloc(cs, &b, &x->b);
    cz_cs_pop_scope(cs);
    switch (x->op) {
    case OP_ADD: cz_bp_constraint_add(cs, &r1, &a, &b); break;
    case OP_SUB: cz_bp_constraint_sub(cs, &r1, &a, &b); break;
    case OP_MUL: cz_bp_num_mul(cs, &r1, &a, &b); break;
    case OP_SQUARE: cz_bp_num_square(cs, &r1, &a); break;
    case OP_REV: {
        cz_bp_bool c = cz_bp_bool_const(x->cond);
        cz_bp_num_conditionally_reverse(cs, &r1, &r2, &a, &b, &c);
        /* and with an allocated condition */
        cz_bp_abit bit;
        cz_bp_abit_alloc(cs, &bit, x->cond);
        cz_bp_bool cb = cz_bp_bool_is(bit);
        cz_bp_num s1, s2;
        cz_bp_num_conditionally_reverse(cs, &s1, &s2, &a, &b, &cb);
        cz_bp_constraint_equal(cs, &s1, &r1);
        cz_bp_constraint_equal(cs, &s2, &r2);
        break;
    }
    case OP_NONZERO: cz_bp_num_assert_nonzero(cs, &a); break;
    case OP_EQUAL: cz_bp_constraint_equal(cs, &a, &b); break;
    case OP_ENCODE: cz_bp_encode(cs, &r1, &a, &b); break;
    case OP_DECODE: cz_bp_decode(cs, &r1, &a, &b); break;
    default: {
        cz_bp_root ra = cz_bp_root_from_allocated(&a), rv = cz_bp_root_val(&x->b), rw;
        cz_bp_root_allocated(cs, &r1, &ra); /* no allocation */
        cz_bp_root_allocated(cs, &r2, &rv); /* one aux */
        cz_bp_root_var(cs, &rw, &x->a);     /* one aux */
        cz_bp_constraint_equal(cs, &rw.var, &r1);
        break;
    }
    }
    if (cz_cs_has_values(cs)) {
        x->r1 = r1.value;
        x->r2 = r2.value;
    }
    return CZ_OK;
}

static void test_num_ops(void **state)
{
    (void)state;
    for (int it = 0; it < 100; it++) {
        nctx x;
        memset(&x, 0, sizeof x);
        cz_rng_fr(&x.a);
        cz_rng_fr(&x.b);
        cz_fr want;
        /* constraint.rs add_constraint / sub_constraint */
        x.op = OP_ADD;
        counts k = record_check(num_synth, &x, NULL);
        assert_int_equal(k.constraints, 1);
        assert_int_equal(k.aux, 3);
        cz_fr_add(&want, &x.a, &x.b);
        assert_fr_eq(&x.r1, &want);
        x.op = OP_SUB;
        k = record_check(num_synth, &x, NULL);
        assert_int_equal(k.constraints, 1);
        cz_fr_sub(&want, &x.a, &x.b);
        assert_fr_eq(&x.r1, &want);
        /* encode = add(key, value); decode = sub(value, key) */
        x.op = OP_ENCODE;
        record_check(num_synth, &x, NULL);
        cz_fr_add(&want, &x.a, &x.b);
        assert_fr_eq(&x.r1, &want);
        x.op = OP_DECODE;
        record_check(num_synth, &x, NULL);
        cz_fr_sub(&want, &x.b, &x.a);
        assert_fr_eq(&x.r1, &want);
    }
    nctx x;
    memset(&x, 0, sizeof x);
    /* num.rs test_num_multiplication: 12 · 10 = 120 */
    cz_fr_from_u64(&x.a, 12);
    cz_fr_from_u64(&x.b, 10);
    x.op = OP_MUL;
    counts k = record_check(num_synth, &x, NULL);
    assert_int_equal(k.constraints, 1);
    cz_fr want;
    cz_fr_from_u64(&want, 120);
    assert_fr_eq(&x.r1, &want);
    /* test_num_squaring: 3^2 = 9 */
    cz_fr_from_u64(&x.a, 3);
    x.op = OP_SQUARE;
    record_check(num_synth, &x, NULL);
    cz_fr_from_u64(&want, 9);
    assert_fr_eq(&x.r1, &want);
    /* test_num_nonzero */
    x.op = OP_NONZERO;
    k = record_check(num_synth, &x, NULL);
    assert_int_equal(k.constraints, 1);
    x.a = CZ_FR_ZERO;
    cz_check_report rep;
    assert_int_equal(cz_cs_check(num_synth, &x, &rep), CZ_ERR_INVALID_ARG);
    /* test_num_conditional_reversal, both conditions */
    for (int cnd = 0; cnd < 2; cnd++) {
        cz_rng_fr(&x.a);
        cz_rng_fr(&x.b);
        x.cond = cnd;
        x.op = OP_REV;
        k = record_check(num_synth, &x, NULL);
        assert_int_equal(k.constraints, 2 + 1 + 2 + 2);
        assert_fr_eq(&x.r1, cnd ? &x.b : &x.a);
        assert_fr_eq(&x.r2, cnd ? &x.a : &x.b);
    }
    /* equal: satisfied iff a == b */
    x.op = OP_EQUAL;
    x.b = x.a;
    k = record_check(num_synth, &x, NULL);
    assert_int_equal(k.constraints, 1);
    cz_fr_add(&x.b, &x.a, &CZ_FR_ONE);
    assert_int_equal(cz_cs_check(num_synth, &x, &rep), CZ_ERR_UNSATISFIED);
    /* Root: Var allocates nothing, Val and var() one aux each */
    x.op = OP_ROOT;
    k = record_check(num_synth, &x, NULL);
    assert_int_equal(k.aux, 4);
    assert_int_equal(k.constraints, 1);
    assert_fr_eq(&x.r1, &x.a);
    assert_fr_eq(&x.r2, &x.b);
}

/* num.rs test_into_bits (the non-strict half) */
typedef struct {
    cz_fr v;
    cz_bp_bool bits[CZ_BP_FR_NUM_BITS];
} bctx;

static cz_status bits_synth(cz_cs *cs, const void *vctx)
{
    bctx *x = (bctx *)vctx;
    cz_bp_num n;
    cz_cs_push_scope(cs, "num");
    cz_bp_num_alloc(cs, &n, &x->v);
    cz_cs_pop_scope(cs);
    cz_bp_num_to_bits_le(cs, x->bits, &n);
    return CZ_OK;
}

static void test_to_bits_le(void **state)
{
    (void)state;
    for (int it = 0; it < 40; it++) {
        bctx x;
        if (it == 0)
            cz_fr_neg(&x.v, &CZ_FR_ONE);
        else
            cz_rng_fr(&x.v);
        cz_witness w;
        counts k = record_check(bits_synth, &x, &w);
        assert_int_equal(k.constraints, 256);
        assert_int_equal(k.aux, 256);
        uint64_t l[4];
        cz_fr_to_raw(l, &x.v);
        for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++) {
            assert_int_equal(x.bits[i].kind, CZ_BP_IS);
            assert_int_equal(cz_bp_bool_value(&x.bits[i]), (l[i / 64] >> (i % 64)) & 1);
        }
        /* changing num breaks the unpacking constraint; flipping any bit
         * breaks its boolean constraint */
        cz_fr save = w.aux[0];
        cz_rng_fr(&w.aux[0]);
        assert_int_equal(cz_cs_check_witness(bits_synth, &x, &w, NULL), CZ_ERR_UNSATISFIED);
        w.aux[0] = save;
        for (int j = 0; j < 8; j++) {
            size_t b = 1 + cz_rng_u64() % CZ_BP_FR_NUM_BITS;
            cz_fr s = w.aux[b];
            cz_fr_sub(&w.aux[b], &CZ_FR_ONE, &s);
            assert_int_equal(cz_cs_check_witness(bits_synth, &x, &w, NULL), CZ_ERR_UNSATISFIED);
            w.aux[b] = s;
        }
        assert_int_equal(cz_cs_check_witness(bits_synth, &x, &w, NULL), CZ_OK);
        cz_witness_free(&w);
    }
}

/* ---- multipack ----------------------------------------------------------------- */

typedef struct {
    size_t n;
    bool bits[1600];
    int pack_bits;
    cz_fr packed;
} mctx;

static cz_status mp_synth(cz_cs *cs, const void *vctx)
{
    mctx *x = (mctx *)vctx;
    cz_bp_bool *b = malloc((x->n + 1) * sizeof *b);
    if (!b)
        return CZ_ERR_NOMEM;
    for (size_t i = 0; i < x->n; i++) {
        cz_bp_abit a;
        cz_cs_push_scope(cs, "bit %zu", i);
        cz_bp_abit_alloc(cs, &a, x->bits[i]);
        cz_cs_pop_scope(cs);
        b[i] = cz_bp_bool_is(a);
    }
    cz_cs_push_scope(cs, "pack");
    if (x->pack_bits) {
        cz_bp_num out;
        cz_bp_pack_bits(cs, &out, b, x->n);
        if (cz_cs_has_values(cs))
            x->packed = out.value;
    } else {
        cz_bp_pack_into_inputs(cs, b, x->n);
    }
    cz_cs_pop_scope(cs);
    free(b);
    return CZ_OK;
}

/* an independent packing: the chunk as little-endian bytes */
static void pack_ref(cz_fr *out, const bool *bits, size_t n)
{
    uint8_t bytes[32] = {0};
    for (size_t i = 0; i < n; i++)
        if (bits[i])
            bytes[i / 8] |= (uint8_t)(1u << (i % 8));
    assert_int_equal(cz_fr_from_bytes_le(out, bytes), CZ_OK);
}

/* multipack.rs test_multipacking */
static void test_multipacking(void **state)
{
    (void)state;
    static mctx x;
    for (size_t n = 0; n < 1500; n += 1 + (n > 300 ? 37 : 0)) {
        x.n = n;
        x.pack_bits = 0;
        for (size_t i = 0; i < n; i++)
            x.bits[i] = cz_rng_u64() & 1;
        cz_witness w;
        counts k = record_check(mp_synth, &x, &w);
        size_t m = cz_bp_multipack_count(n);
        assert_int_equal(k.inputs, 1 + m);
        assert_int_equal(k.constraints, n + m);
        cz_fr expected[8];
        cz_bp_compute_multipacking(expected, x.bits, n);
        for (size_t j = 0; j < m; j++) {
            assert_fr_eq(&w.inputs[1 + j], &expected[j]);
            cz_fr r;
            size_t len = n - 254 * j < 254 ? n - 254 * j : 254;
            pack_ref(&r, x.bits + 254 * j, len);
            assert_fr_eq(&expected[j], &r);
        }
        cz_witness_free(&w);
    }
    /* pack_bits keeps the first CAPACITY bits */
    x.n = 256;
    x.pack_bits = 1;
    for (size_t i = 0; i < 256; i++)
        x.bits[i] = 1;
    counts k = record_check(mp_synth, &x, NULL);
    assert_int_equal(k.inputs, 1);
    assert_int_equal(k.constraints, 257);
    assert_int_equal(k.aux, 257);
    cz_fr r;
    pack_ref(&r, x.bits, 254);
    assert_fr_eq(&x.packed, &r);
}

static void test_bytes_to_bits(void **state)
{
    (void)state;
    const uint8_t in[2] = {0x80, 0x03};
    bool be[16], le[16];
    cz_bp_bytes_to_bits(be, in, 2);
    cz_bp_bytes_to_bits_le(le, in, 2);
    static const bool want_be[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
    static const bool want_le[16] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(be, want_be, sizeof be);
    assert_memory_equal(le, want_le, sizeof le);
}

/* ---- UInt64 -------------------------------------------------------------------- */

/* uint64.rs test_uint64_from_bits_be / test_uint64_from_bits */
static void test_uint64_from_bits(void **state)
{
    (void)state;
    for (int it = 0; it < 1000; it++) {
        cz_bp_bool v[64], back[64];
        for (int i = 0; i < 64; i++)
            v[i] = cz_bp_bool_const(cz_rng_u64() & 1);
        cz_bp_uint64 b;
        cz_bp_uint64_from_bits_be(&b, v);
        for (int i = 0; i < 64; i++) {
            assert_int_equal(b.bits[i].kind, CZ_BP_CONST);
            assert_int_equal(b.bits[i].constant, (b.value >> i) & 1);
        }
        cz_bp_uint64_to_bits_be(&b, back);
        for (int i = 0; i < 64; i++)
            assert_int_equal(back[i].constant, v[i].constant);
        cz_bp_uint64_from_bits(&b, v);
        for (int i = 0; i < 64; i++)
            assert_int_equal(b.bits[i].constant, (b.value >> i) & 1);
        cz_bp_uint64_to_bits_le(&b, back);
        for (int i = 0; i < 64; i++)
            assert_int_equal(back[i].constant, v[i].constant);
    }
    cz_bp_uint64 c;
    cz_bp_uint64_constant(&c, 0x8000000000000001ull);
    assert_true(c.bits[0].constant && c.bits[63].constant && !c.bits[1].constant);
}

typedef struct {
    uint64_t v;
    uint64_t got;
} uctx;

static cz_status u64_synth(cz_cs *cs, const void *vctx)
{
    uctx *x = (uctx *)vctx;
    cz_bp_uint64 u;
    cz_cs_push_scope(cs, "challenge");
    cz_bp_uint64_alloc(cs, &u, x->v);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "challenge input");
    cz_bp_uint64_pack_into_input(cs, &u);
    cz_cs_pop_scope(cs);
    if (cz_cs_has_values(cs))
        x->got = u.value;
    return CZ_OK;
}

/* params.rs: UInt64::alloc(challenge) then pack_into_input -> the
 * challenge as one public input */
static void test_uint64_alloc(void **state)
{
    (void)state;
    for (int it = 0; it < 20; it++) {
        uctx x = {cz_rng_u64() >> (it % 64), 0};
        cz_witness w;
        counts k = record_check(u64_synth, &x, &w);
        assert_int_equal(k.constraints, 65);
        assert_int_equal(k.aux, 64);
        assert_int_equal(k.inputs, 2);
        cz_fr want;
        cz_fr_from_u64(&want, x.v);
        assert_fr_eq(&w.inputs[1], &want);
        assert_int_equal(x.got, x.v);
        cz_witness_free(&w);
    }
}


/* ---- the recorded rows themselves --------------------------------------------
 * Counts and satisfaction cannot tell two R1CS apart that differ only in
 * where a term sits (A vs C) or in a folded constant; these check the rows
 * the reference's code writes, term by term (after merging). */

typedef struct {
    cz_var var;
    cz_fr coeff;
} term;

static void assert_row(const cz_pce *p, const cz_csr *m, uint64_t row, const term *want, size_t n)
{
    uint64_t lo = m->row_ptr[row], hi = m->row_ptr[row + 1];
    if (hi - lo != n)
        fail_msg("row %llu: %llu terms, expected %zu", (unsigned long long)row,
                 (unsigned long long)(hi - lo), n);
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        for (uint64_t k = lo; k < hi; k++) {
            if (m->col[k] != want[i].var)
                continue;
            assert_fr_eq(&p->coeffs[m->coef[k]], &want[i].coeff);
            found = true;
        }
        if (!found)
            fail_msg("row %llu: no term on var %#x", (unsigned long long)row, want[i].var);
    }
}

static term T(cz_var v, const cz_fr *c) { term t = {v, *c}; return t; }

static void test_rows(void **state)
{
    (void)state;
    cz_fr one = CZ_FR_ONE, m1;
    cz_fr_neg(&m1, &one);
    cz_pce *p;
    /* to_bits_le: 255 boolean rows, then 0 · 0 = Σ 2^i·bit_i − num */
    bctx b;
    cz_rng_fr(&b.v);
    assert_int_equal(cz_pce_record(&p, bits_synth, &b, NULL), CZ_OK);
    static term tb[256];
    for (unsigned i = 0; i < 255; i++)
        tb[i] = T(cz_var_aux(1 + i), cz_fr_pow2(i));
    tb[255] = T(cz_var_aux(0), &m1);
    assert_row(p, &p->a, 255, NULL, 0);
    assert_row(p, &p->b, 255, NULL, 0);
    assert_row(p, &p->c, 255, tb, 256);
    /* a boolean row: (1 − b)·b = 0 */
    term bo[2] = {T(CZ_VAR_ONE, &one), T(cz_var_aux(1), &m1)}, bb[1] = {T(cz_var_aux(1), &one)};
    assert_row(p, &p->a, 0, bo, 2);
    assert_row(p, &p->b, 0, bb, 1);
    assert_row(p, &p->c, 0, NULL, 0);
    cz_pce_free(p);

    /* select over 2: pick(bit, from[1], from[0]): (from0 − from1)·bit = from0 − c */
    ictx x = {.insert = 0, .log_size = 1, .index = 1};
    assert_int_equal(cz_pce_record(&p, ins_synth, &x, NULL), CZ_OK);
    term pa[2] = {T(cz_var_aux(0), &one), T(cz_var_aux(1), &m1)}, pb[1] = {T(cz_var_aux(2), &one)},
         pc[2] = {T(cz_var_aux(0), &one), T(cz_var_aux(3), &m1)};
    assert_row(p, &p->a, 1, pa, 2);
    assert_row(p, &p->b, 1, pb, 1);
    assert_row(p, &p->c, 1, pc, 2);
    cz_pce_free(p);

    /* pack_into_inputs of 3 bits: (b0 + 2·b1 + 4·b2)·ONE = input 1 */
    static mctx mx;
    mx.n = 3;
    mx.pack_bits = 0;
    assert_int_equal(cz_pce_record(&p, mp_synth, &mx, NULL), CZ_OK);
    term ka[3] = {T(cz_var_aux(0), cz_fr_pow2(0)), T(cz_var_aux(1), cz_fr_pow2(1)), T(cz_var_aux(2), cz_fr_pow2(2))},
         kb[1] = {T(CZ_VAR_ONE, &one)}, kc[1] = {T(cz_var_input(1), &one)};
    assert_row(p, &p->a, 3, ka, 3);
    assert_row(p, &p->b, 3, kb, 1);
    assert_row(p, &p->c, 3, kc, 1);
    cz_pce_free(p);

    /* Poseidon arity 2. Inputs x0 = aux 0, x1 = aux 1. First round, lane 1:
     * row 0 square_sum: (x0 + pre)·(x0 + pre) = l2 (aux 2); row 1 l2·l2 = l4
     * (aux 3); row 2 mul_sum: (x0 + pre)·l4 = l5 − post (aux 4), with pre =
     * crc[1], post = crc[t + 1]. */
    const cz_neptune_constants *c = cz_neptune_constants_get(2);
    assert_non_null(c);
    unsigned t = c->width;
    const cz_fr *crc = c->compressed_round_constants;
    cz_fr got, npost;
    pctx px = {.which = P_HASH2, .n = 2, .out = &got};
    cz_rng_fr(&px.in[0]);
    cz_rng_fr(&px.in[1]);
    assert_int_equal(cz_pce_record(&p, pos_synth, &px, NULL), CZ_OK);
    cz_fr_neg(&npost, &crc[t + 1]);
    term s0[2] = {T(CZ_VAR_ONE, &crc[1]), T(cz_var_aux(0), &one)}, s0c[1] = {T(cz_var_aux(2), &one)};
    assert_row(p, &p->a, 0, s0, 2);
    assert_row(p, &p->b, 0, s0, 2);
    assert_row(p, &p->c, 0, s0c, 1);
    term s2b[1] = {T(cz_var_aux(3), &one)}, s2c[2] = {T(CZ_VAR_ONE, &npost), T(cz_var_aux(4), &one)};
    assert_row(p, &p->a, 2, s0, 2);
    assert_row(p, &p->b, 2, s2b, 1);
    assert_row(p, &p->c, 2, s2c, 2);
    /* Row 6, second full round, lane 0 "enforce num allocation preserves
     * lc": A = Σ_i mds[i][0]·lane_i with lane 0 the folded constant
     * tag' = (tag + crc[0])^5 + crc[t] (on ONE) and lanes 1, 2 the l5 of
     * the first round (aux 4, aux 7); B = ONE; C = the new aux 8. */
    cz_fr tag, sq, k0, k1, k2;
    cz_fr_add(&tag, &c->domain_tag, &crc[0]);
    cz_fr_sqr(&sq, &tag);
    cz_fr_sqr(&sq, &sq);
    cz_fr_mul(&tag, &tag, &sq);
    cz_fr_add(&tag, &tag, &crc[t]);
    cz_fr_mul(&k0, &tag, &c->mds[0 * t + 0]);
    k1 = c->mds[1 * t + 0];
    k2 = c->mds[2 * t + 0];
    term e6[3] = {T(CZ_VAR_ONE, &k0), T(cz_var_aux(4), &k1), T(cz_var_aux(7), &k2)};
    term e6c[1] = {T(cz_var_aux(8), &one)};
    assert_row(p, &p->a, 6, e6, 3);
    assert_row(p, &p->b, 6, kb, 1);
    assert_row(p, &p->c, 6, e6c, 1);
    /* row 9, its S-box's mul_sum: l·l4 = l5 − crc[2t] (the post key of
     * round 1, lane 0) */
    cz_fr_neg(&npost, &crc[2 * t]);
    term m9a[1] = {T(cz_var_aux(8), &one)}, m9b[1] = {T(cz_var_aux(10), &one)},
         m9c[2] = {T(CZ_VAR_ONE, &npost), T(cz_var_aux(11), &one)};
    assert_row(p, &p->a, 9, m9a, 1);
    assert_row(p, &p->b, 9, m9b, 1);
    assert_row(p, &p->c, 9, m9c, 2);
    /* The last circuit row allocates the result: lc·ONE = out (last aux). */
    uint64_t last = p->n_circuit_constraints - 1;
    term lc1[1] = {T(cz_var_aux((uint32_t)p->n_aux - 1), &one)};
    assert_row(p, &p->b, last, kb, 1);
    assert_row(p, &p->c, last, lc1, 1);
    /* terminal round: mul_sum without keys (row last − 1: l·l4 = l5) */
    term tl[1] = {T(cz_var_aux((uint32_t)p->n_aux - 2), &one)};
    assert_row(p, &p->c, last - 1, tl, 1);
    cz_pce_free(p);
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_poseidon_counts),
        cmocka_unit_test(test_poseidon_kats),
        cmocka_unit_test(test_hash2_and_column),
        cmocka_unit_test(test_multi_leaf),
        cmocka_unit_test(test_hash_md),
        cmocka_unit_test(test_poseidon_tamper),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_insert),
        cmocka_unit_test(test_num_ops),
        cmocka_unit_test(test_to_bits_le),
        cmocka_unit_test(test_multipacking),
        cmocka_unit_test(test_bytes_to_bits),
        cmocka_unit_test(test_uint64_from_bits),
        cmocka_unit_test(test_uint64_alloc),
        cmocka_unit_test(test_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
