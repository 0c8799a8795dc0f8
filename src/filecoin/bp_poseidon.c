/*
 * neptune 11 src/circuit.rs — the legacy Poseidon circuit that
 * filecoin-hashers' PoseidonFunction circuits and storage-proofs-porep's
 * hash_single_column call (neptune::circuit::poseidon_hash) — and those
 * callers, bellperson-exact (cuzk/fil_bp_num.h).
 *
 * The circuit runs HashMode::OptimizedStatic on Elts: an Elt is either an
 * allocated num or a Num (LC + value). S-boxes allocate; MDS products
 * (dense, pre-sparse, sparse) only combine LCs. The layout of
 * compressed_round_constants, pre_sparse and the sparse matrices is the
 * one cz_neptune_constants documents (cuzk/fil_poseidon.h).
 */
#include "cuzk/fil_bp_num.h"

#include <string.h>

/* neptune circuit.rs Elt */
typedef struct {
    bool allocated;
    cz_bp_num num;  /* allocated */
    cz_bp_lcnum lc; /* !allocated (always initialised, empty when allocated) */
} elt;

typedef struct {
    cz_cs *cs;
    const cz_neptune_constants *c;
    unsigned width;
    size_t constants_offset;
    unsigned current_round;
    elt *el;  /* width */
    elt *tmp; /* width, scratch for the products */
} pcircuit;

static void elt_set_num(elt *e, const cz_bp_num *n) {
    cz_lc_clear(&e->lc.lc);
    e->lc.value = CZ_FR_ZERO;
    e->allocated = true;
    e->num = *n;
}

/* Elt::num_from_fr: Num::zero().add_bool_with_coeff(ONE, Constant(true), fr) */
static void elt_set_const(elt *e, const cz_fr *fr) {
    cz_lc_clear(&e->lc.lc);
    e->lc.value = CZ_FR_ZERO;
    e->allocated = false;
    cz_bp_bool t = cz_bp_bool_const(true);
    cz_bp_lcnum_add_bool_with_coeff(&e->lc, &t, fr);
}

/* Elt::val */
static const cz_fr *elt_val(const elt *e) { return e->allocated ? &e->num.value : &e->lc.value; }

/* acc = acc.add(e.scale(s)) for a Num acc (Elt::scale turns an allocated
 * num into Num::from(num) first). */
static void elt_acc_scaled(cz_bp_lcnum *acc, const elt *e, const cz_fr *s) {
    cz_fr t;
    if (e->allocated) {
        cz_lc_add(&acc->lc, e->num.var, s);
        cz_fr_mul(&t, &e->num.value, s);
    } else {
        cz_lc_add_lc(&acc->lc, &e->lc.lc, s);
        cz_fr_mul(&t, &e->lc.value, s);
    }
    cz_fr_add(&acc->value, &acc->value, &t);
}

/* as Elt::ensure_allocated(cs, enforce = true) */
static void ensure_allocated(cz_cs *cs, cz_bp_num *out, const elt *e) {
    if (e->allocated) {
        *out = e->num;
        return;
    }
    cz_cs_push_scope(cs, "allocate for Elt::Num");
    cz_bp_num_alloc(cs, out, &e->lc.value);
    cz_cs_pop_scope(cs);
    cz_lc a, b, c;
    cz_bp_lc3_init(cs, &a, &b, &c);
    cz_bp_lcnum_lc(&a, &e->lc, NULL);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_add_var(&c, out->var);
    cz_bp_enforce3(cs, &a, &b, &c, "enforce num allocation preserves lc");
}

/* as neptune circuit.rs square_sum(to_add, num, enforce = true):
 * res = (num + to_add)^2; (num + to_add)·(num + to_add) = res */
static void square_sum(cz_cs *cs, cz_bp_num *res, const cz_fr *to_add, const cz_bp_num *num) {
    cz_fr v;
    cz_fr_add(&v, &num->value, to_add);
    cz_fr_sqr(&v, &v);
    cz_cs_push_scope(cs, "squared sum");
    cz_bp_num_alloc(cs, res, &v);
    cz_cs_pop_scope(cs);
    cz_lc a, b, c;
    cz_bp_lc3_init(cs, &a, &b, &c);
    cz_lc_add_var(&a, num->var);
    cz_lc_add(&a, CZ_VAR_ONE, to_add);
    cz_lc_add_var(&b, num->var);
    cz_lc_add(&b, CZ_VAR_ONE, to_add);
    cz_lc_add_var(&c, res->var);
    cz_bp_enforce3(cs, &a, &b, &c, "squared sum constraint");
}

/* as neptune circuit.rs mul_sum(a, b, pre_add, post_add, enforce = true):
 * res = a·(b + pre_add) + post_add; (b + pre)·a = res − post */
static void mul_sum(cz_cs *cs, cz_bp_num *res, const cz_bp_num *a, const cz_bp_num *b,
                    const cz_fr *pre_add, const cz_fr *post_add) {
    cz_fr v = b->value;
    if (pre_add) cz_fr_add(&v, &v, pre_add);
    cz_fr_mul(&v, &v, &a->value);
    if (post_add) cz_fr_add(&v, &v, post_add);
    cz_cs_push_scope(cs, "mul_sum");
    cz_bp_num_alloc(cs, res, &v);
    cz_cs_pop_scope(cs);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, b->var);
    if (pre_add) cz_lc_add(&la, CZ_VAR_ONE, pre_add);
    cz_lc_add_var(&lb, a->var);
    cz_lc_add_var(&lc, res->var);
    if (post_add) {
        cz_fr neg;
        cz_fr_neg(&neg, post_add);
        cz_lc_add(&lc, CZ_VAR_ONE, &neg);
    }
    cz_cs_enforce(cs, &la, &lb, &lc,
                  post_add ? (pre_add ? "mul sum constraint pre-post-add" : "mul sum constraint post-add")
                           : (pre_add ? "mul sum constraint pre-add" : "mul sum constraint"));
    cz_lc_free(&la);
    cz_lc_free(&lb);
    cz_lc_free(&lc);
}

static void num_square_named(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const char *name) {
    cz_cs_push_scope(cs, "%s", name);
    cz_bp_num_square(cs, out, a);
    cz_cs_pop_scope(cs);
}

/* as neptune circuit.rs quintic_s_box(e, post_round_key) */
static void quintic_s_box(cz_cs *cs, elt *e, const cz_fr *post_round_key) {
    cz_bp_num l, l2, l4, l5;
    cz_cs_push_scope(cs, "S-box input");
    ensure_allocated(cs, &l, e);
    cz_cs_pop_scope(cs);
    num_square_named(cs, &l2, &l, "l^2");
    num_square_named(cs, &l4, &l2, "l^4");
    cz_cs_push_scope(cs, "(l4 * l) + rk)");
    mul_sum(cs, &l5, &l4, &l, NULL, post_round_key);
    cz_cs_pop_scope(cs);
    elt_set_num(e, &l5);
}

/* as neptune circuit.rs quintic_s_box_pre_add(e, pre, post): both keys
 * always present (the reference panics otherwise). */
static void quintic_s_box_pre_add(cz_cs *cs, elt *e, const cz_fr *pre, const cz_fr *post) {
    cz_bp_num l, l2, l4, l5;
    cz_cs_push_scope(cs, "S-box input");
    ensure_allocated(cs, &l, e);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "(l+rk)^2");
    square_sum(cs, &l2, pre, &l);
    cz_cs_pop_scope(cs);
    num_square_named(cs, &l4, &l2, "l^4");
    cz_cs_push_scope(cs, "l4 * (l + rk)");
    mul_sum(cs, &l5, &l4, &l, pre, post);
    cz_cs_pop_scope(cs);
    elt_set_num(e, &l5);
}

/* as neptune circuit.rs constant_quintic_s_box_pre_add_tag: the tag lane's
 * first S-box computed as a constant (crate::quintic_s_box on its value). */
static void constant_quintic_s_box_pre_add_tag(elt *e, const cz_fr *pre, const cz_fr *post) {
    cz_fr v = *elt_val(e), t;
    cz_fr_add(&v, &v, pre);
    cz_fr_sqr(&t, &v);
    cz_fr_sqr(&t, &t);
    cz_fr_mul(&v, &v, &t);
    cz_fr_add(&v, &v, post);
    elt_set_const(e, &v);
}

/* Swap in the products computed into p->tmp. */
static void swap_state(pcircuit *p) {
    elt *t = p->el;
    p->el = p->tmp;
    p->tmp = t;
}

static void tmp_reset(pcircuit *p, unsigned j) {
    elt *r = &p->tmp[j];
    cz_lc_clear(&r->lc.lc);
    r->lc.value = CZ_FR_ZERO;
    r->allocated = false;
}

/* as PoseidonCircuit::product_mds_with_matrix: result[j] = Σ_i el[i]·m[i][j]
 * (scalar_product over column j) */
static void product_mds_with_matrix(pcircuit *p, const cz_fr *m) {
    unsigned t = p->width;
    for (unsigned j = 0; j < t; j++) {
        tmp_reset(p, j);
        for (unsigned i = 0; i < t; i++) elt_acc_scaled(&p->tmp[j].lc, &p->el[i], &m[(size_t)i * t + j]);
    }
    swap_state(p);
}

/* as PoseidonCircuit::product_mds_with_sparse_matrix: result[0] =
 * Σ_i el[i]·w_hat[i]; result[j] = el[j] + el[0]·v_rest[j − 1] (el[j] must
 * be a Num: Elt::add panics otherwise). */
static void product_mds_with_sparse_matrix(pcircuit *p, const cz_fr *w_hat, const cz_fr *v_rest) {
    unsigned t = p->width;
    tmp_reset(p, 0);
    for (unsigned i = 0; i < t; i++) elt_acc_scaled(&p->tmp[0].lc, &p->el[i], &w_hat[i]);
    for (unsigned j = 1; j < t; j++) {
        tmp_reset(p, j);
        if (p->el[j].allocated) {
            cz_cs_fail(p->cs, CZ_ERR_INTERNAL, "poseidon: sparse product on an allocated lane");
            continue;
        }
        cz_bp_lcnum_add(&p->tmp[j].lc, &p->el[j].lc);
        elt_acc_scaled(&p->tmp[j].lc, &p->el[0], &v_rest[j - 1]);
    }
    swap_state(p);
}

/* as PoseidonCircuit::product_mds */
static void product_mds(pcircuit *p) {
    const cz_neptune_constants *c = p->c;
    unsigned full_half = c->half_full_rounds, sparse_offset = full_half - 1, t = p->width;
    if (p->current_round == sparse_offset) {
        product_mds_with_matrix(p, c->pre_sparse);
    } else if (p->current_round > sparse_offset && p->current_round < full_half + c->partial_rounds) {
        size_t index = p->current_round - sparse_offset - 1;
        product_mds_with_sparse_matrix(p, c->sparse_w_hat + index * t, c->sparse_v_rest + index * (t - 1));
    } else {
        product_mds_with_matrix(p, c->mds);
    }
    p->current_round++;
}

/* as PoseidonCircuit::full_round */
static void full_round(pcircuit *p, bool first_round, bool last_round) {
    cz_cs *cs = p->cs;
    unsigned t = p->width;
    size_t off = p->constants_offset;
    const cz_fr *crc = p->c->compressed_round_constants;
    const cz_fr *pre = NULL, *post = NULL;
    if (first_round) {
        pre = crc + off;
        off += t;
    }
    if (first_round || !last_round) {
        post = crc + off;
        off += t;
    }
    for (unsigned i = 0; i < t; i++) {
        if (first_round) {
            if (i == 0) {
                constant_quintic_s_box_pre_add_tag(&p->el[0], &pre[0], &post[0]);
            } else {
                cz_cs_push_scope(cs, "quintic s-box %u", i);
                quintic_s_box_pre_add(cs, &p->el[i], &pre[i], &post[i]);
                cz_cs_pop_scope(cs);
            }
        } else {
            cz_cs_push_scope(cs, "quintic s-box %u", i);
            quintic_s_box(cs, &p->el[i], post ? &post[i] : NULL);
            cz_cs_pop_scope(cs);
        }
    }
    p->constants_offset = off;
    product_mds(p);
}

/* as PoseidonCircuit::partial_round */
static void partial_round(pcircuit *p) {
    const cz_fr *rk = &p->c->compressed_round_constants[p->constants_offset];
    p->constants_offset++;
    cz_cs_push_scope(p->cs, "solitary quintic s-box");
    quintic_s_box(p->cs, &p->el[0], rk);
    cz_cs_pop_scope(p->cs);
    product_mds(p);
}

/* as PoseidonCircuit::hash */
static void pcircuit_hash(pcircuit *p, cz_bp_num *out) {
    cz_cs *cs = p->cs;
    const cz_neptune_constants *c = p->c;
    cz_cs_push_scope(cs, "first round");
    full_round(p, true, false);
    cz_cs_pop_scope(cs);
    for (unsigned i = 1; i < c->full_rounds / 2; i++) {
        cz_cs_push_scope(cs, "initial full round %u", i);
        full_round(p, false, false);
        cz_cs_pop_scope(cs);
    }
    for (unsigned i = 0; i < c->partial_rounds; i++) {
        cz_cs_push_scope(cs, "partial round %u", i);
        partial_round(p);
        cz_cs_pop_scope(cs);
    }
    for (unsigned i = 0; i + 1 < c->full_rounds / 2; i++) {
        cz_cs_push_scope(cs, "final full round %u", i);
        full_round(p, false, false);
        cz_cs_pop_scope(cs);
    }
    cz_cs_push_scope(cs, "terminal full round");
    full_round(p, false, true);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "hash result");
    ensure_allocated(cs, out, &p->el[1]);
    cz_cs_pop_scope(cs);
}

static void out_dummy(cz_bp_num *out) {
    out->var = cz_var_aux(0);
    out->value = CZ_FR_ZERO;
}

/* as neptune::circuit::poseidon_hash */
void cz_bp_poseidon_hash(cz_cs *cs, cz_bp_num *out, const cz_bp_num *preimage,
                         const cz_neptune_constants *c) {
    if (!c) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "poseidon: no constants");
        out_dummy(out);
        return;
    }
    if (c->hash_type == CZ_NEPTUNE_CONSTANT_LENGTH && c->type_param != c->arity) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG,
                   "poseidon: ConstantLength(%llu) circuit needs length == arity %u",
                   (unsigned long long)c->type_param, c->arity);
        out_dummy(out);
        return;
    }
    unsigned t = c->width;
    elt a[CZ_NEPTUNE_WIDTH_MAX], b[CZ_NEPTUNE_WIDTH_MAX];
    for (unsigned i = 0; i < t; i++) {
        cz_bp_lcnum_init(&a[i].lc, cs);
        cz_bp_lcnum_init(&b[i].lc, cs);
        a[i].allocated = b[i].allocated = false;
    }
    /* [Num(domain_tag), Allocated(preimage)...] */
    elt_set_const(&a[0], &c->domain_tag);
    for (unsigned i = 1; i < t; i++) elt_set_num(&a[i], &preimage[i - 1]);
    pcircuit p = {cs, c, t, 0, 0, a, b};
    pcircuit_hash(&p, out);
    for (unsigned i = 0; i < t; i++) {
        cz_bp_lcnum_free(&a[i].lc);
        cz_bp_lcnum_free(&b[i].lc);
    }
}

static const cz_neptune_constants *fil_constants(cz_cs *cs, unsigned arity) {
    const cz_neptune_constants *c = cz_neptune_constants_get(arity);
    if (!c) cz_cs_fail(cs, CZ_ERR_NOMEM, "poseidon: constants for arity %u unavailable", arity);
    return c;
}

/* as filecoin-hashers PoseidonFunction::hash2_circuit (and ::hash_leaf_circuit) */
void cz_bp_poseidon_hash2(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b) {
    cz_bp_num pre[2] = {*a, *b};
    cz_bp_poseidon_hash(cs, out, pre, fil_constants(cs, 2));
}

/* as filecoin-hashers PoseidonFunction::hash_multi_leaf_circuit::<Arity> */
void cz_bp_poseidon_hash_multi_leaf(cz_cs *cs, cz_bp_num *out, const cz_bp_num *leaves,
                                    unsigned arity) {
    switch (arity) {
    case 2: case 4: case 8: case 11: case 16: case 24: case 36:
        cz_bp_poseidon_hash(cs, out, leaves, fil_constants(cs, arity));
        return;
    default:
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "poseidon: no PoseidonArity for %u", arity);
        out_dummy(out);
    }
}

/* as filecoin-hashers PoseidonFunction::hash_md_circuit (PoseidonMDArity = 36) */
void cz_bp_poseidon_hash_md(cz_cs *cs, cz_bp_num *out, const cz_bp_num *elements, size_t n) {
    enum { MD = 36 };
    if (n == 0) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "hash_md: no elements");
        out_dummy(out);
        return;
    }
    const cz_neptune_constants *c = fil_constants(cs, MD);
    cz_bp_num hash = elements[0], preimage[MD];
    size_t hash_num = 0;
    for (size_t start = 1; start < n; start += MD - 1, hash_num++) {
        size_t len = n - start < MD - 1 ? n - start : MD - 1;
        preimage[0] = hash;
        for (size_t i = 0; i < len; i++) preimage[i + 1] = elements[start + i];
        for (size_t i = len + 1; i < MD; i++) {
            cz_cs_push_scope(cs, "padding %zu", i);
            cz_bp_num_alloc(cs, &preimage[i], &CZ_FR_ZERO);
            cz_cs_pop_scope(cs);
        }
        cz_cs_push_scope(cs, "hash md %zu", hash_num);
        cz_bp_poseidon_hash(cs, &hash, preimage, c);
        cz_cs_pop_scope(cs);
    }
    *out = hash;
}

/* as storage-proofs-porep stacked::circuit::hash::hash_single_column */
void cz_bp_hash_single_column(cz_cs *cs, cz_bp_num *out, const cz_bp_num *column, unsigned n) {
    if (n != 2 && n != 11) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "hash_single_column: unsupported column size %u", n);
        out_dummy(out);
        return;
    }
    cz_bp_poseidon_hash(cs, out, column, fil_constants(cs, n));
}
