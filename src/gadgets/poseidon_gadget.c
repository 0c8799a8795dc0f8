/*
 * cuzk — Poseidon permutation gadget (include/cuzk/poseidon.h).
 *
 * The state is carried in the optimised form of poseidon.c (constants
 * folded onto lane 0 in the partial rounds, sparse MDS factors). That form
 * leaves lane 0 and the S-box inputs exactly as in the plain evaluation
 * (the carried block never touches lane 0; the folded constants are
 * re-added before every S-box that sees them), so the witness is the plain
 * evaluation's S-box trace; only the linear bookkeeping is cheaper.
 *
 * Linear state: lane i = Σ_k coef[i][k]·basis[k] + cst[i], where basis
 * holds the S-box output variables since the last full round (t of them
 * after a full round, one more per partial round). Dense coefficient rows
 * merge terms per variable for free, so an LC never exceeds t + R_P terms
 * (adding LCs naively would multiply their length by t every round).
 * In witness mode (no LCs wanted) only values are tracked.
 *
 * Constant lanes (the hash's domain tag in round 0) are tracked by a flag:
 * a lane is constant while it depends on constant lanes only, and its
 * S-box is then evaluated natively (no constraint). The flags do not
 * depend on the mode, so every mode counts the same constraints.
 */
#include "cuzk/poseidon.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    cz_cs *cs;
    const cz_poseidon_params *p;
    unsigned t;
    bool lc;           /* tracking linear combinations */
    size_t nb, cap;    /* basis size, capacity (t + r_p) */
    cz_var *basis;
    cz_fr *coef;       /* t rows of cap */
    cz_fr cst[CZ_POSEIDON_T_MAX];
    cz_fr val[CZ_POSEIDON_T_MAX];
    bool is_const[CZ_POSEIDON_T_MAX];
} pg;

static inline cz_fr *row(pg *g, unsigned lane) { return &g->coef[(size_t)lane * g->cap]; }

static void sbox_val(cz_fr *y, const cz_fr *x)
{
    cz_fr x2, x4;
    cz_fr_sqr(&x2, x);
    cz_fr_sqr(&x4, &x2);
    cz_fr_mul(y, &x4, x);
}

/* Lane as an LC (into a fresh lc) plus constant c. */
static void lane_lc(pg *g, unsigned lane, const cz_fr *c, cz_lc *lc)
{
    cz_lc_init(lc, g->cs);
    if (!g->lc)
        return;
    const cz_fr *r = row(g, lane);
    for (size_t k = 0; k < g->nb; k++)
        if (!cz_fr_is_zero(&r[k]))
            cz_lc_add(lc, g->basis[k], &r[k]);
    cz_fr k0;
    cz_fr_add(&k0, &g->cst[lane], c);
    if (!cz_fr_is_zero(&k0))
        cz_lc_add_const(lc, &k0);
}

/* x^5 of the LC x (value xv): three constraints; returns the x5 variable. */
static cz_var sbox_gadget(cz_cs *cs, const cz_lc *x, const cz_fr *xv, cz_fr *yv)
{
    cz_fr x2v, x4v;
    cz_fr_sqr(&x2v, xv);
    cz_fr_sqr(&x4v, &x2v);
    cz_fr_mul(yv, &x4v, xv);
    cz_var x2, x4, x5;
    cz_cs_alloc_aux(cs, &x2, &x2v);
    cz_cs_alloc_aux(cs, &x4, &x4v);
    cz_cs_alloc_aux(cs, &x5, yv);
    cz_lc l2, l4, l5;
    cz_lc_init(&l2, cs);
    cz_lc_init(&l4, cs);
    cz_lc_init(&l5, cs);
    cz_lc_add_var(&l2, x2);
    cz_lc_add_var(&l4, x4);
    cz_lc_add_var(&l5, x5);
    cz_cs_enforce(cs, x, x, &l2, "x2");
    cz_cs_enforce(cs, &l2, &l2, &l4, "x4");
    cz_cs_enforce(cs, &l4, x, &l5, "x5");
    cz_lc_free(&l2);
    cz_lc_free(&l4);
    cz_lc_free(&l5);
    return x5;
}

/* S-box on lane j after adding c: returns true and sets *out_var when a
 * variable was made; false when the lane is constant (value in *yv). The
 * input LC is the lane's, or `src` when non-NULL (round 0: caller LCs). */
static bool sbox_lane(pg *g, unsigned round, unsigned j, const cz_fr *c, const cz_lc *src,
                      cz_var *out_var, cz_fr *yv)
{
    cz_fr xv;
    cz_fr_add(&xv, &g->val[j], c);
    if (g->is_const[j]) {
        sbox_val(yv, &xv);
        return false;
    }
    cz_lc x;
    if (src) {
        cz_lc_init(&x, g->cs);
        cz_lc_add_lc(&x, src, NULL);
        if (!cz_fr_is_zero(c))
            cz_lc_add_const(&x, c);
    } else {
        lane_lc(g, j, c, &x);
    }
    cz_cs_push_scope(g->cs, "round[%u]", round);
    cz_cs_push_scope(g->cs, "sbox[%u]", j);
    *out_var = sbox_gadget(g->cs, &x, &xv, yv);
    cz_cs_pop_scope(g->cs);
    cz_cs_pop_scope(g->cs);
    cz_lc_free(&x);
    return true;
}

/* Full round r with constants c: every lane through the S-box, then the
 * dense MDS; the basis restarts at the new S-box outputs. */
static void full_round(pg *g, unsigned r, const cz_fr *c, const cz_lc *src, unsigned src_first)
{
    unsigned t = g->t;
    cz_var y[CZ_POSEIDON_T_MAX];
    cz_fr yv[CZ_POSEIDON_T_MAX];
    bool var[CZ_POSEIDON_T_MAX];
    bool all_const = true;
    for (unsigned j = 0; j < t; j++) {
        const cz_lc *lj = src && j >= src_first ? &src[j - src_first] : NULL;
        var[j] = sbox_lane(g, r, j, &c[j], lj, &y[j], &yv[j]);
        all_const = all_const && !var[j];
    }
    /* new basis: the variables made in this round, lane order */
    g->nb = 0;
    size_t slot[CZ_POSEIDON_T_MAX];
    for (unsigned j = 0; j < t; j++)
        if (var[j]) {
            slot[j] = g->nb;
            g->basis[g->nb++] = y[j];
        }
    const cz_fr *m = g->p->mds;
    for (unsigned i = 0; i < t; i++) {
        cz_fr acc = CZ_FR_ZERO, cacc = CZ_FR_ZERO, prod;
        cz_fr *ri = row(g, i);
        for (unsigned j = 0; j < t; j++) {
            cz_fr_mul(&prod, &m[i * t + j], &yv[j]);
            cz_fr_add(&acc, &acc, &prod);
            if (!var[j])
                cz_fr_add(&cacc, &cacc, &prod);
            else if (g->lc)
                ri[slot[j]] = m[i * t + j];
        }
        g->val[i] = acc;
        g->cst[i] = cacc;
        g->is_const[i] = all_const;
    }
}

/* Partial round i (0-based within the block), optimised form. */
static void partial_round(pg *g, unsigned round, unsigned i)
{
    const cz_poseidon_params *p = g->p;
    unsigned t = g->t, n = t - 1;
    const cz_fr *w = &p->opt_sparse[(size_t)i * 2 * n], *v = w + n;
    cz_var s = 0;
    cz_fr sv, prod;
    bool is_var = sbox_lane(g, round, 0, &p->opt_rc_partial[i], NULL, &s, &sv);
    size_t ks = g->nb;
    if (is_var)
        g->basis[g->nb++] = s;
    /* z0' = m00·s + Σ w_j z_j */
    cz_fr v0, c0;
    cz_fr_mul(&v0, &p->mds[0], &sv);
    c0 = is_var ? CZ_FR_ZERO : v0;
    bool const0 = !is_var;
    for (unsigned j = 0; j < n; j++) {
        cz_fr_mul(&prod, &w[j], &g->val[j + 1]);
        cz_fr_add(&v0, &v0, &prod);
        cz_fr_mul(&prod, &w[j], &g->cst[j + 1]);
        cz_fr_add(&c0, &c0, &prod);
        const0 = const0 && g->is_const[j + 1];
    }
    if (g->lc) {
        /* rows of lanes 1.. have no entry at ks yet: z_j does not depend on s */
        cz_fr *r0 = row(g, 0);
        for (size_t k = 0; k < ks; k++)
            r0[k] = CZ_FR_ZERO;
        for (unsigned j = 0; j < n; j++) {
            const cz_fr *rj = row(g, j + 1);
            for (size_t k = 0; k < ks; k++) {
                if (cz_fr_is_zero(&rj[k]))
                    continue;
                cz_fr_mul(&prod, &w[j], &rj[k]);
                cz_fr_add(&r0[k], &r0[k], &prod);
            }
        }
        if (is_var)
            r0[ks] = p->mds[0];
    }
    /* z_j' = z_j + v_j·s */
    for (unsigned j = 0; j < n; j++) {
        cz_fr_mul(&prod, &v[j], &sv);
        cz_fr_add(&g->val[j + 1], &g->val[j + 1], &prod);
        if (is_var) {
            if (g->lc)
                row(g, j + 1)[ks] = v[j];
            g->is_const[j + 1] = false;
        } else {
            cz_fr_add(&g->cst[j + 1], &g->cst[j + 1], &prod);
        }
    }
    g->val[0] = v0;
    g->cst[0] = c0;
    g->is_const[0] = const0;
}

/* The carried block on lanes 1..t−1 after the partial rounds. */
static void tail(pg *g)
{
    unsigned n = g->t - 1;
    const cz_fr *T = g->p->opt_tail;
    cz_fr nv[CZ_POSEIDON_T_MAX], nc[CZ_POSEIDON_T_MAX], prod;
    bool all_const = true;
    for (unsigned j = 0; j < n; j++)
        all_const = all_const && g->is_const[j + 1];
    for (unsigned i = 0; i < n; i++) {
        nv[i] = nc[i] = CZ_FR_ZERO;
        for (unsigned j = 0; j < n; j++) {
            cz_fr_mul(&prod, &T[i * n + j], &g->val[j + 1]);
            cz_fr_add(&nv[i], &nv[i], &prod);
            cz_fr_mul(&prod, &T[i * n + j], &g->cst[j + 1]);
            cz_fr_add(&nc[i], &nc[i], &prod);
        }
    }
    if (g->lc) {
        /* rows 1..n ← T·rows 1..n, through a scratch copy of the rows */
        size_t nb = g->nb;
        cz_fr *old = malloc((size_t)n * nb * sizeof(cz_fr) + 1);
        if (!old) {
            cz_cs_fail(g->cs, CZ_ERR_NOMEM, "poseidon gadget: out of memory");
            return;
        }
        for (unsigned j = 0; j < n; j++)
            memcpy(&old[(size_t)j * nb], row(g, j + 1), nb * sizeof(cz_fr));
        for (unsigned i = 0; i < n; i++) {
            cz_fr *ri = row(g, i + 1);
            for (size_t k = 0; k < nb; k++) {
                cz_fr acc = CZ_FR_ZERO;
                for (unsigned j = 0; j < n; j++) {
                    const cz_fr *o = &old[(size_t)j * nb + k];
                    if (cz_fr_is_zero(o))
                        continue;
                    cz_fr_mul(&prod, &T[i * n + j], o);
                    cz_fr_add(&acc, &acc, &prod);
                }
                ri[k] = acc;
            }
        }
        free(old);
    }
    for (unsigned i = 0; i < n; i++) {
        g->val[i + 1] = nv[i];
        g->cst[i + 1] = nc[i];
        g->is_const[i + 1] = all_const;
    }
}

/* The whole permutation. Lanes j < in_first are the constants in_val[j];
 * lane j >= in_first is the LC in[j − in_first] with value in_val[j]
 * (in_val NULL: zeros). Lanes first_out .. first_out + n_out − 1 of the
 * result are written to out/out_val. */
static void permute(cz_cs *cs, const cz_poseidon_params *p, const cz_lc *in, const cz_fr *in_val,
                    unsigned in_first, cz_lc *out, unsigned first_out, unsigned n_out,
                    cz_fr *out_val)
{
    for (unsigned j = 0; j < n_out; j++)
        cz_lc_init(&out[j], cs);
    if (!p || !in || p->t < CZ_POSEIDON_T_MIN || p->t > CZ_POSEIDON_T_MAX) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "poseidon gadget: bad parameters");
        return;
    }
    pg g;
    memset(&g, 0, sizeof g);
    g.cs = cs;
    g.p = p;
    g.t = p->t;
    g.lc = cz_cs_wants_lc(cs);
    g.cap = (size_t)p->t + p->r_p;
    unsigned t = p->t, half = p->r_f / 2;
    g.basis = malloc(g.cap * sizeof(cz_var));
    g.coef = g.lc ? calloc((size_t)t * g.cap, sizeof(cz_fr)) : NULL;
    if (!g.basis || (g.lc && !g.coef)) {
        free(g.basis);
        free(g.coef);
        cz_cs_fail(cs, CZ_ERR_NOMEM, "poseidon gadget: out of memory");
        return;
    }
    for (unsigned j = 0; j < t; j++) {
        g.val[j] = in_val ? in_val[j] : CZ_FR_ZERO;
        g.is_const[j] = j < in_first;
        g.cst[j] = g.is_const[j] ? g.val[j] : CZ_FR_ZERO;
    }
    cz_cs_push_scope(cs, "poseidon");
    unsigned r = 0;
    for (; r < half; r++)
        full_round(&g, r, &p->rc[(size_t)r * t], r == 0 ? in : NULL, in_first);
    for (unsigned i = 0; i < p->r_p; i++, r++)
        partial_round(&g, r, i);
    tail(&g);
    full_round(&g, r, p->opt_rc_full2, NULL, 0);
    for (r++; r < p->r_f + p->r_p; r++)
        full_round(&g, r, &p->rc[(size_t)r * t], NULL, 0);
    cz_cs_pop_scope(cs);
    for (unsigned j = 0; j < n_out; j++) {
        unsigned lane = first_out + j;
        cz_fr zero = CZ_FR_ZERO;
        cz_lc_free(&out[j]);
        lane_lc(&g, lane, &zero, &out[j]);
        if (out_val)
            out_val[j] = g.val[lane];
    }
    free(g.basis);
    free(g.coef);
}

void cz_poseidon_permute_gadget(cz_cs *cs, const cz_poseidon_params *p, const cz_lc *in,
                                const cz_fr *in_val, cz_lc *out, cz_fr *out_val)
{
    permute(cs, p, in, in_val, 0, out, 0, p ? p->t : 0, out_val);
}

void cz_poseidon_hash_gadget(cz_cs *cs, const cz_poseidon_params *p, const cz_lc *in,
                             const cz_fr *in_val, cz_lc *out, cz_fr *out_val)
{
    if (!p || !in || p->t < CZ_POSEIDON_T_MIN || p->t > CZ_POSEIDON_T_MAX) {
        cz_lc_init(out, cs);
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "poseidon hash gadget: bad parameters");
        return;
    }
    unsigned t = p->t;
    cz_fr vals[CZ_POSEIDON_T_MAX];
    vals[0] = p->domain_tag;
    for (unsigned j = 1; j < t; j++)
        vals[j] = in_val ? in_val[j - 1] : CZ_FR_ZERO;
    permute(cs, p, in, vals, 1, out, 1, 1, out_val);
}

size_t cz_poseidon_permute_constraints(unsigned t)
{
    unsigned r_p = cz_poseidon_partial_rounds(t);
    return r_p ? 3 * ((size_t)CZ_POSEIDON_R_F * t + r_p) : 0;
}

size_t cz_poseidon_hash_constraints(unsigned t)
{
    size_t n = cz_poseidon_permute_constraints(t);
    return n ? n - 3 : 0;
}
