/*
 * snarkjs .zkey -> cuzk parameters (bellperson layout), so cuzk's own
 * split prover can run on a snarkjs setup: an independent check of that
 * prover (the setup, the H convention and the verifier are snarkjs's).
 *
 * Queries: ic = IC; l = C (private signals); a = A_j for every input and
 * for the aux with A_j != O (that is the A-density); b_g1/b_g2 likewise with
 * B_j != O. H: snarkjs keeps h'_j = [Λ_j(τ)·Z(τ)/(−2δ)] for the odd-coset
 * Lagrange basis Λ_j (points q_j = w_2n^(2j+1), cuzk's roots after the
 * index map of zkey_prove.c), while bellperson wants h_i = [τ^i Z(τ)/δ].
 * Since τ^i = Σ_j q_j^i Λ_j(τ) for i < n,
 *     h_i = −2 · w_2n^i · Σ_j w_n^(ij) h'_j,
 * a forward DFT over G1 (n/2·log n variable-time scalar multiplications by
 * public twiddles) followed by a scaling.
 */
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/snarkjs.h"
#include "interop_internal.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    cz_g1_jac *x;
    const cz_scalar *tw; /* tw[k] = w_n^(k·step) as canonical scalars, k < n/2 */
    size_t half, step;
} stage_ctx;

static void stage_range(void *arg, size_t lo, size_t hi)
{
    stage_ctx *s = arg;
    for (size_t b = lo; b < hi; b++) {
        size_t group = b / s->half, k = b % s->half;
        size_t i = group * 2 * s->half + k, j = i + s->half;
        cz_g1_jac t;
        cz_g1_jac_mul_var(&t, &s->x[j], s->tw[k * s->step].l, 4);
        cz_g1_jac_neg(&s->x[j], &t);
        cz_g1_jac_add(&s->x[j], &s->x[i], &s->x[j]);
        cz_g1_jac_add(&s->x[i], &s->x[i], &t);
    }
}

/* In-place forward DFT over G1: X_k = Σ_j w_n^(jk) x_j (natural order). */
static cz_status g1_dft(cz_g1_jac *x, size_t n, unsigned logn, cz_pool *pool)
{
    /* bit reversal, then iterative Cooley–Tukey */
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            cz_g1_jac t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
    size_t nh = n / 2 ? n / 2 : 1;
    cz_scalar *tw = malloc(nh * sizeof *tw);
    if (!tw) return CZ_ERR_NOMEM;
    cz_fr w, p = CZ_FR_ONE;
    cz_fr_root_of_unity(&w, logn);
    for (size_t k = 0; k < nh; k++) {
        cz_scalar_from_fr(&tw[k], &p);
        cz_fr_mul(&p, &p, &w);
    }
    for (size_t half = 1; half < n; half <<= 1) {
        stage_ctx s = {x, tw, half, n / (2 * half)};
        cz_pool_parallel_range(pool, 0, n / 2, 16, stage_range, &s);
    }
    free(tw);
    return CZ_OK;
}

static void set_bit(uint64_t *bm, uint64_t i) { bm[i / 64] |= 1ULL << (i % 64); }

cz_status cz_snarkjs_zkey_to_params(const cz_snarkjs_zkey *z, cz_pool *pool, cz_groth16_params **out,
                                    cz_pce **shape, cz_errbuf *err)
{
    *out = NULL;
    *shape = NULL;
    size_t n = z->domain_size, nin = (size_t)z->n_public + 1, naux = (size_t)z->n_vars - nin;
    unsigned logn = 0;
    while (((size_t)1 << logn) < n) logn++;
    if (n < 2) return cz_err(err, CZ_ERR_UNSUPPORTED, "zkey: domain %zu too small to convert", n);
    cz_groth16_params *p = calloc(1, sizeof *p);
    cz_pce *s = calloc(1, sizeof *s);
    cz_g1_jac *hx = malloc(n * sizeof *hx);
    cz_status st = CZ_OK;
    if (!p || !s || !hx) {
        st = cz_err(err, CZ_ERR_NOMEM, "out of memory");
        goto fail;
    }
    /* the shape: counts and densities (the prover reads nothing else) */
    s->n_constraints = n;
    s->n_circuit_constraints = n;
    s->n_inputs = nin;
    s->n_aux = naux;
    s->a.row_ptr = calloc(n + 1, sizeof(uint64_t));
    s->b.row_ptr = calloc(n + 1, sizeof(uint64_t));
    s->c.row_ptr = calloc(n + 1, sizeof(uint64_t));
    s->dens_a_aux = calloc((naux + 63) / 64 + 1, 8);
    s->dens_b_aux = calloc((naux + 63) / 64 + 1, 8);
    s->dens_b_input = calloc((nin + 63) / 64 + 1, 8);
    p->vk.ic = malloc(nin * sizeof(cz_g1_affine));
    p->l = malloc((naux ? naux : 1) * sizeof(cz_g1_affine));
    p->a = malloc(z->n_vars * sizeof(cz_g1_affine));
    p->b_g1 = malloc(z->n_vars * sizeof(cz_g1_affine));
    p->b_g2 = malloc(z->n_vars * sizeof(cz_g2_affine));
    p->h = malloc(n * sizeof(cz_g1_affine));
    if (!s->a.row_ptr || !s->b.row_ptr || !s->c.row_ptr || !s->dens_a_aux || !s->dens_b_aux || !s->dens_b_input ||
        !p->vk.ic || !p->l || !p->a || !p->b_g1 || !p->b_g2 || !p->h) {
        st = cz_err(err, CZ_ERR_NOMEM, "out of memory");
        goto fail;
    }
    p->vk.alpha_g1 = z->alpha1;
    p->vk.beta_g1 = z->beta1;
    p->vk.delta_g1 = z->delta1;
    p->vk.beta_g2 = z->beta2;
    p->vk.gamma_g2 = z->gamma2;
    p->vk.delta_g2 = z->delta2;
    p->vk.n_ic = nin;
    memcpy(p->vk.ic, z->ic, nin * sizeof(cz_g1_affine));
    memcpy(p->l, z->c, naux * sizeof(cz_g1_affine));
    p->n_l = naux;
    for (size_t j = 0; j < z->n_vars; j++) {
        bool in = j < nin;
        bool ai = cz_g1_affine_is_infinity(&z->a[j]);
        bool b1i = cz_g1_affine_is_infinity(&z->b1[j]), b2i = cz_g2_affine_is_infinity(&z->b2[j]);
        if (b1i != b2i) {
            st = cz_err(err, CZ_ERR_FORMAT, "zkey: signal %zu has B1 %s the identity but B2 %s", j,
                        b1i ? "=" : "!=", b2i ? "=" : "!=");
            goto fail;
        }
        if (in && ai) {
            st = cz_err(err, CZ_ERR_FORMAT, "zkey: public signal %zu has an identity A point", j);
            goto fail;
        }
        if (!ai) {
            p->a[p->n_a++] = z->a[j];
            if (!in) {
                set_bit(s->dens_a_aux, j - nin);
                s->dens_a_aux_count++;
            }
        }
        if (!b1i) {
            p->b_g1[p->n_b] = z->b1[j];
            p->b_g2[p->n_b++] = z->b2[j];
            if (in) {
                set_bit(s->dens_b_input, j);
                s->dens_b_input_count++;
            } else {
                set_bit(s->dens_b_aux, j - nin);
                s->dens_b_aux_count++;
            }
        }
    }
    for (size_t i = 0; i < naux; i++) {
        if (cz_g1_affine_is_infinity(&p->l[i])) {
            st = cz_err(err, CZ_ERR_IDENTITY, "zkey: C point of private signal %zu is the identity", i);
            goto fail;
        }
    }
    /* H: gather snarkjs's order into cuzk's odd-coset order, DFT, scale */
    const uint64_t K = cz__snarkjs_root_exponent(), mask = n - 1;
    for (size_t c = 0; c < n; c++)
        cz_g1_jac_from_affine(&hx[((K * (2 * (uint64_t)c + 1)) & (2 * mask + 1)) >> 1], &z->h[c]);
    if ((st = g1_dft(hx, n, logn, pool)) != CZ_OK) {
        cz_err(err, st, "out of memory");
        goto fail;
    }
    cz_fr w2n, f;
    cz_fr_root_of_unity(&w2n, logn + 1);
    cz_fr_from_u64(&f, 2);
    cz_fr_neg(&f, &f);
    for (size_t i = 0; i + 1 < n; i++) {
        cz_scalar sc;
        cz_scalar_from_fr(&sc, &f);
        cz_g1_jac_mul_var(&hx[i], &hx[i], sc.l, 4);
        cz_fr_mul(&f, &f, &w2n);
    }
    cz_g1_batch_to_affine(p->h, hx, n - 1);
    p->n_h = n - 1;
    free(hx);
    if ((st = cz_groth16_params_check_shape(p, s, err)) != CZ_OK) goto fail2;
    *out = p;
    *shape = s;
    return CZ_OK;
fail:
    free(hx);
fail2:
    cz_groth16_params_free(p);
    cz_pce_free(s);
    return st;
}

/* The §4 terms scatter to rows j = K·constraint mod dn, a permutation that
 * sends consecutive constraints far apart. Where each (matrix,
 * constraint)'s terms lie together (z->coef_grouped: keys as snarkjs and
 * cuzk write them), part p takes the p-th range of terms, its ends moved
 * to the next change of key, so that no row of a or b is written by two
 * parts: the terms are read once in all. Otherwise part p scans every
 * term and applies those of its rows (the scan is ~48 bytes a term; on
 * T threads it is read T times). A coefficient of 1 or -1 adds or
 * subtracts the witness value without the product (the same field
 * element): circom's bit and SHA-256 constraints are mostly such terms
 * (84 % of shaped-18's 1.29 M; 4 % of the Poseidon preset's). c = a∘b
 * follows, by rows, once every part is done. */
typedef struct {
    const cz_snarkjs_zkey *z;
    const cz_fr *w;
    const cz_scalar *w_raw; /* records: the witness as plain integers */
    cz_fr *a, *b, *c;
    uint64_t K, mask;
    size_t nparts;
    cz_fr minus_one;
    cz_fr s_one, s_minus_one; /* records: the stored forms (c·R^2) of 1 and -1 */
} abc_ctx;

/* The terms whose coefficient is not ±1, gathered ABC_BATCH at a time
 * so that their products run on the NTT's vector kernels
 * (cz_fr_pointwise_mul); each row still receives exactly its terms, and
 * a sum of field elements does not depend on their order. */
enum { ABC_BATCH = 128 };
typedef struct {
    cz_fr v[ABC_BATCH], w[ABC_BATCH];
    cz_fr *dst[ABC_BATCH];
    unsigned k;
} abc_batch;

static void batch_flush(abc_batch *t)
{
    cz_fr_pointwise_mul(t->v, t->w, t->k);
    for (unsigned i = 0; i < t->k; i++) cz_fr_add(t->dst[i], t->dst[i], &t->v[i]);
    t->k = 0;
}

static inline void batch_add(abc_batch *t, cz_fr *dst, const cz_fr *v, const cz_fr *w)
{
    t->v[t->k] = *v;
    t->w[t->k] = *w;
    t->dst[t->k] = dst;
    if (++t->k == ABC_BATCH) batch_flush(t);
}

/* The same sums from the §4 records (CZ_SNARKJS_COEF_RECORDS), terms
 * [i0, i1), rows [lo, hi): a stored value s = c·R^2 times the plain
 * witness value v through the Montgomery product is c·R^2·v·R^-1 =
 * (c·v)·R, cuzk's form of c·v: one product a term, as from a decoded
 * coefficient, with no decoding pass. */
static void abc_terms_rec(const abc_ctx *x, size_t i0, size_t i1, size_t lo, size_t hi)
{
    abc_batch t;
    t.k = 0;
    const uint8_t *p = x->z->coef_rec + 44 * i0;
    for (size_t i = i0; i < i1; i++, p += 44) {
        uint32_t f[3];
        memcpy(f, p, sizeof f); /* matrix, constraint, signal: checked at parse */
        size_t j = (size_t)((x->K * f[1]) & x->mask);
        if (j < lo || j >= hi) continue;
        cz_fr v, *dst = f[0] ? x->b : x->a;
        memcpy(v.l, p + 12, 32);
        if (cz_fr_eq(&v, &x->s_one)) {
            cz_fr_add(&dst[j], &dst[j], &x->w[f[2]]);
        } else if (cz_fr_eq(&v, &x->s_minus_one)) {
            cz_fr_sub(&dst[j], &dst[j], &x->w[f[2]]);
        } else {
            cz_fr raw;
            memcpy(raw.l, x->w_raw[f[2]].l, 32);
            batch_add(&t, &dst[j], &v, &raw);
        }
    }
    batch_flush(&t);
}

/* The sums from decoded coefficients, terms [i0, i1), rows [lo, hi). */
static void abc_terms_dec(const abc_ctx *x, size_t i0, size_t i1, size_t lo, size_t hi)
{
    abc_batch t;
    t.k = 0;
    for (size_t i = i0; i < i1; i++) {
        const cz_zkey_coef *k = &x->z->coefs[i];
        size_t j = (size_t)((x->K * k->constraint) & x->mask);
        if (j < lo || j >= hi) continue;
        cz_fr *dst = k->matrix ? x->b : x->a;
        if (cz_fr_is_one(&k->value)) {
            cz_fr_add(&dst[j], &dst[j], &x->w[k->signal]);
        } else if (cz_fr_eq(&k->value, &x->minus_one)) {
            cz_fr_sub(&dst[j], &dst[j], &x->w[k->signal]);
        } else {
            batch_add(&t, &dst[j], &k->value, &x->w[k->signal]);
        }
    }
    batch_flush(&t);
}

/* The (matrix, constraint) of term i, as one comparable value. */
static uint64_t term_key(const cz_snarkjs_zkey *z, size_t i)
{
    if (z->coef_rec) {
        uint32_t f[2];
        memcpy(f, z->coef_rec + 44 * i, sizeof f);
        return (uint64_t)f[0] << 32 | f[1];
    }
    return (uint64_t)z->coefs[i].matrix << 32 | z->coefs[i].constraint;
}

/* Where part p's terms begin (grouped keys): at n·p/nparts, moved on to
 * the first term whose key differs from the one before it. */
static size_t terms_start(const cz_snarkjs_zkey *z, size_t p, size_t nparts)
{
    const size_t n = z->n_coefs;
    if (p >= nparts) return n;
    size_t i = (size_t)((uint64_t)n * p / nparts); /* n < 2^32 terms, p <= nparts <= 2^31 rows */
    while (i > 0 && i < n && term_key(z, i) == term_key(z, i - 1)) i++;
    return i;
}

static void abc_part(void *arg, size_t part)
{
    const abc_ctx *x = arg;
    const size_t dn = x->z->domain_size;
    size_t i0 = 0, i1 = x->z->n_coefs, lo = 0, hi = dn;
    if (x->z->coef_grouped) {
        i0 = terms_start(x->z, part, x->nparts);
        i1 = terms_start(x->z, part + 1, x->nparts);
    } else {
        lo = dn * part / x->nparts;
        hi = dn * (part + 1) / x->nparts;
    }
    if (x->z->coef_rec) abc_terms_rec(x, i0, i1, lo, hi);
    else abc_terms_dec(x, i0, i1, lo, hi);
}

static void c_part(void *arg, size_t part)
{
    const abc_ctx *x = arg;
    const size_t dn = x->z->domain_size, lo = dn * part / x->nparts, hi = dn * (part + 1) / x->nparts;
    memcpy(x->c + lo, x->a + lo, (hi - lo) * sizeof *x->c);
    cz_fr_pointwise_mul(x->c + lo, x->b + lo, hi - lo);
}

cz_status cz__snarkjs_eval_abc_raw(const cz_snarkjs_zkey *z, const cz_fr *w, const cz_scalar *w_raw, size_t n,
                                   cz_fr *a, cz_fr *b, cz_fr *c, cz_pool *pool, cz_errbuf *err)
{
    if (n != z->n_vars)
        return cz_err(err, CZ_ERR_MISMATCH, "witness has %zu values, the zkey expects nVars = %u", n, z->n_vars);
    size_t dn = z->domain_size;
    memset(a, 0, dn * sizeof *a);
    memset(b, 0, dn * sizeof *b);
    abc_ctx x = {z, w, w_raw, a, b, c, cz__snarkjs_root_exponent(), dn - 1, pool ? cz_pool_size(pool) + 1 : 1,
                 {{0}}, {{0}}, {{0}}};
    cz_fr_from_u64(&x.minus_one, 1);
    cz_fr_neg(&x.minus_one, &x.minus_one);
    /* the stored form of c is the Montgomery form of c·R, i.e. from_raw of
     * cuzk's limbs of c (as cz_snarkjs_zkey_write writes it) */
    if (cz_fr_from_raw(&x.s_one, CZ_FR_ONE.l) != CZ_OK || cz_fr_from_raw(&x.s_minus_one, x.minus_one.l) != CZ_OK)
        return cz_err(err, CZ_ERR_INTERNAL, "eval_abc: constants");
    if (x.nparts > dn) x.nparts = dn;
    cz_pool_parallel_for(pool, x.nparts, abc_part, &x);
    cz_pool_parallel_for(pool, x.nparts, c_part, &x);
    return CZ_OK;
}

cz_status cz_snarkjs_eval_abc(const cz_snarkjs_zkey *z, const cz_fr *w, size_t n, cz_fr *a, cz_fr *b, cz_fr *c,
                              cz_pool *pool, cz_errbuf *err)
{
    if (!z->coef_rec || n != z->n_vars) return cz__snarkjs_eval_abc_raw(z, w, NULL, n, a, b, c, pool, err);
    cz_scalar *raw = malloc((n ? n : 1) * sizeof *raw);
    if (!raw) return cz_err(err, CZ_ERR_NOMEM, "eval_abc: out of memory for %zu values", n);
    cz_msm_scalars_from_fr(raw, w, n, pool);
    cz_status st = cz__snarkjs_eval_abc_raw(z, w, raw, n, a, b, c, pool, err);
    free(raw);
    return st;
}
