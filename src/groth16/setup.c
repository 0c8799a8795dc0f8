/*
 * Groth16 trusted setup from a recorded circuit (PCE).
 *
 * Secrets: tau, alpha, beta, gamma, delta come from the OS CSPRNG (or a
 * test override), and everything derived from them — the Lagrange values
 * L_i(tau), the QAP evaluations u_j, v_j, w_j and the query scalars — is
 * handled with constant-time field arithmetic and a constant-time
 * fixed-base comb (table lookups scan every entry), and wiped with
 * explicit_bzero before it is freed. Only the circuit's structure (which
 * rows hold which variables: public) drives branches and memory access.
 *
 * Lagrange basis at tau over the domain <w> of size m:
 *   L_i(tau) = (tau^m - 1)/m · w^i/(tau - w^i)
 * then u_j(tau) = sum_i A_ij L_i(tau) (likewise v from B, w from C).
 */
#include "cuzk/groth16.h"
#include "groth16/groth16_internal.h"
#include "cuzk/ntt.h"
#include <stdlib.h>
#include <string.h>

static void wipe_free(void *p, size_t n)
{
    if (!p) return;
    explicit_bzero(p, n);
    free(p);
}

/* the odd-coset H query needs a 2^(logm+1)-th root at the largest domain */
_Static_assert(CZ_NTT_MAX_LOG_N < CZ_FR_TWO_ADICITY, "setup's domain limit exceeds Fr's 2-adicity");

/* ---- constant-time fixed-base comb: 64 windows of 4 bits ---- */
#define COMB_WINDOWS 64
#define COMB_ENTRIES 16

typedef struct { cz_g1_affine t[COMB_WINDOWS][COMB_ENTRIES]; } comb_g1;
typedef struct { cz_g2_affine t[COMB_WINDOWS][COMB_ENTRIES]; } comb_g2;

#define DEFINE_COMB(G, F)                                                                   \
static void comb_##G##_build(comb_##G *c)                                                   \
{                                                                                           \
    cz_##G##_jac base, acc;                                                                 \
    cz_##G##_jac row[COMB_ENTRIES];                                                         \
    cz_##G##_generator_jac(&base);                                                          \
    for (int w = 0; w < COMB_WINDOWS; w++) {                                                \
        cz_##G##_jac_set_infinity(&acc);                                                    \
        for (int d = 0; d < COMB_ENTRIES; d++) {                                            \
            row[d] = acc;                                                                   \
            cz_##G##_jac_add(&acc, &acc, &base);                                            \
        }                                                                                   \
        cz_##G##_batch_to_affine(c->t[w], row, COMB_ENTRIES);                               \
        for (int k = 0; k < 4; k++) cz_##G##_jac_dbl(&base, &base);                         \
    }                                                                                       \
}                                                                                           \
/* r = [k]G, k canonical < 2^256; constant time in k. */                                    \
static void comb_##G##_mul(cz_##G##_jac *r, const comb_##G *c, const uint64_t k[4])         \
{                                                                                           \
    cz_##G##_jac acc;                                                                       \
    cz_##G##_affine e;                                                                      \
    cz_##G##_jac_set_infinity(&acc);                                                        \
    for (int w = 0; w < COMB_WINDOWS; w++) {                                                \
        uint64_t nib = (k[w / 16] >> (4 * (w % 16))) & 15;                                  \
        e = c->t[w][0];                                                                     \
        for (uint64_t d = 1; d < COMB_ENTRIES; d++) {                                       \
            uint64_t eq = 1 ^ (((nib ^ d) | (0 - (nib ^ d))) >> 63);                        \
            cz_##F##_cmov(&e.x, &e.x, &c->t[w][d].x, eq);                                   \
            cz_##F##_cmov(&e.y, &e.y, &c->t[w][d].y, eq);                                   \
        }                                                                                   \
        cz_##G##_jac_add_affine(&acc, &acc, &e);                                            \
    }                                                                                       \
    *r = acc;                                                                               \
    /* the selected entries and partial sums are multiples of the secret */                 \
    explicit_bzero(&e, sizeof e);                                                           \
    explicit_bzero(&acc, sizeof acc);                                                       \
}

DEFINE_COMB(g1, fp)
DEFINE_COMB(g2, fp2)

/* ---- parallel batch: out[i] = affine([s_i]G) ---- */
typedef struct {
    const comb_g1 *c1;
    const comb_g2 *c2;
    const cz_fr *s;   /* scalars (Montgomery) */
    void *out;        /* cz_g1_affine* or cz_g2_affine* */
    bool g2;
} fb_ctx;

#define FB_CHUNK 256
static void fb_range(void *arg, size_t lo, size_t hi)
{
    fb_ctx *c = arg;
    for (size_t base = lo; base < hi; base += FB_CHUNK) {
        size_t n = hi - base < FB_CHUNK ? hi - base : FB_CHUNK;
        uint64_t k[4];
        if (c->g2) {
            cz_g2_jac j[FB_CHUNK];
            for (size_t i = 0; i < n; i++) {
                cz_fr_to_raw(k, &c->s[base + i]);
                comb_g2_mul(&j[i], c->c2, k);
            }
            cz_g2_batch_to_affine((cz_g2_affine *)c->out + base, j, n);
            explicit_bzero(j, sizeof j);
        } else {
            cz_g1_jac j[FB_CHUNK];
            for (size_t i = 0; i < n; i++) {
                cz_fr_to_raw(k, &c->s[base + i]);
                comb_g1_mul(&j[i], c->c1, k);
            }
            cz_g1_batch_to_affine((cz_g1_affine *)c->out + base, j, n);
            explicit_bzero(j, sizeof j);
        }
        explicit_bzero(k, sizeof k);
    }
}

static void fixed_base(cz_pool *pool, const comb_g1 *c1, const comb_g2 *c2, const cz_fr *s, void *out,
                       size_t n, bool g2, const cz_groth16_setup_opts *opts, const char *stage)
{
    fb_ctx c = {c1, c2, s, out, g2};
    /* slices so progress can be reported between them */
    size_t slice = n / 50 + FB_CHUNK;
    for (size_t lo = 0; lo < n; lo += slice) {
        size_t hi = n - lo < slice ? n : lo + slice;
        cz_pool_parallel_range(pool, lo, hi, FB_CHUNK, fb_range, &c);
        if (opts && opts->progress) opts->progress(opts->progress_arg, stage, (double)hi / (double)n);
    }
}

cz_status cz__groth16_comb_batch(cz_g1_affine *out1, cz_g2_affine *out2, const cz_fr *s, size_t n)
{
    comb_g1 *c1 = malloc(sizeof *c1);
    comb_g2 *c2 = malloc(sizeof *c2);
    if (!c1 || !c2) {
        free(c1);
        free(c2);
        return CZ_ERR_NOMEM;
    }
    comb_g1_build(c1);
    comb_g2_build(c2);
    fixed_base(NULL, c1, c2, s, out1, n, false, NULL, "g1");
    fixed_base(NULL, c1, c2, s, out2, n, true, NULL, "g2");
    wipe_free(c1, sizeof *c1);
    wipe_free(c2, sizeof *c2);
    return CZ_OK;
}

static bool bit(const uint64_t *bm, uint64_t i) { return (bm[i / 64] >> (i % 64)) & 1; }

/* Scatter one matrix: acc[var] += coef · L[row]. */
static void qap_eval(cz_fr *acc, const cz_csr *m, const cz_pce *pce, const cz_fr *L, uint8_t *used)
{
    for (uint64_t row = 0; row < pce->n_constraints; row++) {
        for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
            cz_var v = m->col[k];
            uint64_t j = cz_var_is_aux(v) ? pce->n_inputs + cz_var_index(v) : cz_var_index(v);
            cz_fr t;
            cz_fr_mul(&t, &pce->coeffs[m->coef[k]], &L[row]);
            cz_fr_add(&acc[j], &acc[j], &t);
            used[j] = 1;
        }
    }
}

cz_status cz_groth16_setup(cz_groth16_params **out, const cz_pce *pce, cz_pool *pool,
                           const cz_groth16_setup_opts *opts, cz_errbuf *err)
{
    *out = NULL;
    uint64_t m = 1;
    unsigned logm = 0;
    while (m < pce->n_constraints) {
        m <<= 1;
        logm++;
    }
    /* The prover's limit (its NTT domains stop at CZ_NTT_MAX_LOG_N), not
     * Fr's 2-adicity: parameters the prover cannot use are refused here. */
    if (logm > CZ_NTT_MAX_LOG_N)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "setup: %llu constraints need a domain of 2^%u, above the prover's limit of 2^%d "
                      "(CZ_NTT_MAX_LOG_N)",
                      (unsigned long long)pce->n_constraints, logm, CZ_NTT_MAX_LOG_N);
    const uint64_t nvars = pce->n_inputs + pce->n_aux;
    cz_status st = CZ_OK;
    cz_fr toxic[5]; /* tau, alpha, beta, gamma, delta */
    cz_fr *L = NULL, *u = NULL, *v = NULL, *w = NULL, *sc = NULL;
    uint8_t *used = NULL;
    comb_g1 *c1 = NULL;
    comb_g2 *c2 = NULL;
    cz_groth16_params *p = NULL;
    cz_g1_affine *ho = NULL;
    size_t L_bytes = m * sizeof(cz_fr), var_bytes = (nvars ? nvars : 1) * sizeof(cz_fr);
    size_t sc_n = m > nvars ? m : nvars;

    for (int i = 0; i < 5; i++) {
        if (opts && opts->test_toxic) {
            toxic[i] = opts->test_toxic[i];
        } else if ((st = cz_fr_random(&toxic[i])) != CZ_OK) {
            st = cz_err(err, st, "setup: cannot read the OS random number generator");
            goto done;
        }
        if (cz_fr_is_zero(&toxic[i])) {
            st = cz_err(err, CZ_ERR_INVALID_ARG, "setup: toxic value %d is zero", i);
            goto done;
        }
    }
    const cz_fr *tau = &toxic[0], *alpha = &toxic[1], *beta = &toxic[2], *gamma = &toxic[3], *delta = &toxic[4];

    L = malloc(L_bytes);
    u = calloc(nvars ? nvars : 1, sizeof(cz_fr));
    v = calloc(nvars ? nvars : 1, sizeof(cz_fr));
    w = calloc(nvars ? nvars : 1, sizeof(cz_fr));
    sc = malloc(sc_n * sizeof(cz_fr));
    used = calloc(nvars ? nvars : 1, 1);
    c1 = malloc(sizeof *c1);
    c2 = malloc(sizeof *c2);
    p = calloc(1, sizeof *p);
    if (!L || !u || !v || !w || !sc || !used || !c1 || !c2 || !p) {
        st = cz_err(err, CZ_ERR_NOMEM, "setup: out of memory (domain 2^%u, %llu variables)", logm,
                    (unsigned long long)nvars);
        goto done;
    }

    /* ---- Lagrange values at tau ---- */
    cz_fr z, t, om, minv, omi;
    uint64_t e[1] = {m};
    cz_fr_pow(&z, tau, e, 1);
    cz_fr_sub(&z, &z, &CZ_FR_ONE); /* tau^m - 1 */
    if (cz_fr_is_zero(&z)) {
        st = cz_err(err, CZ_ERR_INTERNAL, "setup: tau is in the evaluation domain; rerun");
        goto done;
    }
    if (cz_fr_root_of_unity(&om, logm) != CZ_OK) { /* logm <= CZ_NTT_MAX_LOG_N < 2-adicity */
        st = cz_err(err, CZ_ERR_INTERNAL, "setup: no 2^%u-th root of unity in Fr", logm);
        goto done;
    }
    cz_fr_from_u64(&minv, m);
    cz_fr_inv(&minv, &minv);
    /* L[i] <- tau - w^i, prefix products in sc, one constant-time inversion */
    omi = CZ_FR_ONE;
    cz_fr prod = CZ_FR_ONE;
    for (uint64_t i = 0; i < m; i++) {
        cz_fr_sub(&L[i], tau, &omi);
        sc[i] = prod;
        cz_fr_mul(&prod, &prod, &L[i]);
        cz_fr_mul(&omi, &omi, &om);
    }
    if (cz_fr_is_zero(&prod)) {
        st = cz_err(err, CZ_ERR_INTERNAL, "setup: tau is in the evaluation domain; rerun");
        goto done;
    }
    cz_fr_inv(&prod, &prod);
    for (uint64_t i = m; i-- > 0;) {
        cz_fr inv_i;
        cz_fr_mul(&inv_i, &prod, &sc[i]); /* 1/(tau - w^i) */
        cz_fr_mul(&prod, &prod, &L[i]);
        L[i] = inv_i;
    }
    cz_fr_mul(&t, &z, &minv); /* (tau^m - 1)/m */
    omi = CZ_FR_ONE;
    for (uint64_t i = 0; i < m; i++) {
        cz_fr_mul(&L[i], &L[i], &omi);
        cz_fr_mul(&L[i], &L[i], &t);
        cz_fr_mul(&omi, &omi, &om);
    }

    /* ---- QAP evaluations ---- */
    qap_eval(u, &pce->a, pce, L, used);
    qap_eval(v, &pce->b, pce, L, used);
    qap_eval(w, &pce->c, pce, L, used);
    for (uint64_t j = 0; j < nvars; j++) {
        if (!used[j]) {
            if (j < pce->n_inputs)
                st = cz_err(err, CZ_ERR_INVALID_ARG, "setup: public input %llu appears in no constraint",
                            (unsigned long long)j);
            else
                st = cz_err(err, CZ_ERR_INVALID_ARG,
                            "setup: aux variable %llu appears in no constraint (its L point would be the "
                            "identity, which parameter readers reject); remove it from the circuit",
                            (unsigned long long)(j - pce->n_inputs));
            goto done;
        }
    }

    comb_g1_build(c1);
    comb_g2_build(c2);

    /* ---- vk ---- */
    cz_g1_jac j1;
    cz_g2_jac j2;
    uint64_t k[4];
#define VK_G1(dst, s) do { cz_fr_to_raw(k, s); comb_g1_mul(&j1, c1, k); cz_g1_jac_to_affine(dst, &j1); } while (0)
#define VK_G2(dst, s) do { cz_fr_to_raw(k, s); comb_g2_mul(&j2, c2, k); cz_g2_jac_to_affine(dst, &j2); } while (0)
    VK_G1(&p->vk.alpha_g1, alpha);
    VK_G1(&p->vk.beta_g1, beta);
    VK_G2(&p->vk.beta_g2, beta);
    VK_G2(&p->vk.gamma_g2, gamma);
    VK_G1(&p->vk.delta_g1, delta);
    VK_G2(&p->vk.delta_g2, delta);
    explicit_bzero(k, sizeof k);
    explicit_bzero(&j1, sizeof j1); /* [alpha]G1, ... before the affine conversion */
    explicit_bzero(&j2, sizeof j2);

    /* ---- counts and arrays ---- */
    uint64_t na = pce->n_inputs + pce->dens_a_aux_count;
    uint64_t nb = pce->dens_b_input_count + pce->dens_b_aux_count;
    p->vk.n_ic = pce->n_inputs;
    p->n_h = m - 1;
    p->n_l = pce->n_aux;
    p->n_a = na;
    p->n_b = nb;
    p->vk.ic = malloc((p->vk.n_ic ? p->vk.n_ic : 1) * sizeof(cz_g1_affine));
    p->h = malloc((p->n_h ? p->n_h : 1) * sizeof(cz_g1_affine));
    p->l = malloc((p->n_l ? p->n_l : 1) * sizeof(cz_g1_affine));
    p->a = malloc((na ? na : 1) * sizeof(cz_g1_affine));
    p->b_g1 = malloc((nb ? nb : 1) * sizeof(cz_g1_affine));
    p->b_g2 = malloc((nb ? nb : 1) * sizeof(cz_g2_affine));
    if (!p->vk.ic || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2) {
        st = cz_err(err, CZ_ERR_NOMEM, "setup: out of memory for the parameters");
        goto done;
    }

    /* a: u_j for every input, then A-dense aux */
    size_t n = 0;
    for (uint64_t j = 0; j < nvars; j++)
        if (j < pce->n_inputs || bit(pce->dens_a_aux, j - pce->n_inputs)) sc[n++] = u[j];
    fixed_base(pool, c1, c2, sc, p->a, n, false, opts, "a");
    /* b: v_j for B-dense inputs then B-dense aux, in G1 and G2 */
    n = 0;
    for (uint64_t j = 0; j < nvars; j++)
        if (j < pce->n_inputs ? bit(pce->dens_b_input, j) : bit(pce->dens_b_aux, j - pce->n_inputs))
            sc[n++] = v[j];
    fixed_base(pool, c1, c2, sc, p->b_g1, n, false, opts, "b_g1");
    fixed_base(pool, c1, c2, sc, p->b_g2, n, true, opts, "b_g2");
    /* ic and l: (beta u + alpha v + w) / gamma resp. / delta */
    cz_fr ginv, dinv;
    cz_fr_inv(&ginv, gamma);
    cz_fr_inv(&dinv, delta);
    for (uint64_t j = 0; j < nvars; j++) {
        cz_fr x, y;
        cz_fr_mul(&x, beta, &u[j]);
        cz_fr_mul(&y, alpha, &v[j]);
        cz_fr_add(&x, &x, &y);
        cz_fr_add(&x, &x, &w[j]);
        cz_fr_mul(&sc[j], &x, j < pce->n_inputs ? &ginv : &dinv);
        explicit_bzero(&x, sizeof x);
        explicit_bzero(&y, sizeof y);
    }
    fixed_base(pool, c1, c2, sc, p->vk.ic, pce->n_inputs, false, opts, "ic");
    fixed_base(pool, c1, c2, sc + pce->n_inputs, p->l, pce->n_aux, false, opts, "l");
    /* h: tau^i (tau^m - 1) / delta */
    cz_fr_mul(&t, &z, &dinv);
    for (uint64_t i = 0; i + 1 < m; i++) {
        sc[i] = t;
        cz_fr_mul(&t, &t, tau);
    }
    fixed_base(pool, c1, c2, sc, p->h, m - 1, false, opts, "h");
    if (opts && opts->h_odd_out) {
        /* L_(2j+1)(tau) over <w_2m> = (tau^2m - 1)/(2m) · q_j/(tau - q_j),
         * q_j = w_2m^(2j+1); then divided by delta. */
        cz_fr w2m, q, step, zz, two_m_inv, prodq = CZ_FR_ONE;
        if (cz_fr_root_of_unity(&w2m, logm + 1) != CZ_OK) {
            st = cz_err(err, CZ_ERR_INTERNAL, "setup: no 2^%u-th root of unity in Fr", logm + 1);
            goto done;
        }
        cz_fr_sqr(&step, &w2m);
        cz_fr_add(&zz, &z, &CZ_FR_ONE); /* tau^m */
        cz_fr_sqr(&zz, &zz);
        cz_fr_sub(&zz, &zz, &CZ_FR_ONE); /* tau^2m - 1 */
        cz_fr_from_u64(&two_m_inv, 2 * m);
        cz_fr_inv(&two_m_inv, &two_m_inv);
        cz_fr_mul(&zz, &zz, &two_m_inv);
        cz_fr_mul(&zz, &zz, &dinv);
        q = w2m;
        for (uint64_t j = 0; j < m; j++) { /* L <- tau - q_j, prefix products in sc */
            cz_fr_sub(&L[j], tau, &q);
            sc[j] = prodq;
            cz_fr_mul(&prodq, &prodq, &L[j]);
            cz_fr_mul(&q, &q, &step);
        }
        cz_fr_inv(&prodq, &prodq);
        for (uint64_t j = m; j-- > 0;) {
            cz_fr inv_j;
            cz_fr_mul(&inv_j, &prodq, &sc[j]);
            cz_fr_mul(&prodq, &prodq, &L[j]);
            L[j] = inv_j;
        }
        q = w2m;
        for (uint64_t j = 0; j < m; j++) {
            cz_fr_mul(&sc[j], &L[j], &q);
            cz_fr_mul(&sc[j], &sc[j], &zz);
            cz_fr_mul(&q, &q, &step);
        }
        ho = malloc(m * sizeof *ho);
        if (!ho) {
            st = cz_err(err, CZ_ERR_NOMEM, "setup: out of memory for the odd-coset H query");
            goto done;
        }
        fixed_base(pool, c1, c2, sc, ho, m, false, opts, "h_odd");
        explicit_bzero(&zz, sizeof zz);
        explicit_bzero(&prodq, sizeof prodq);
    }
    explicit_bzero(&ginv, sizeof ginv);
    explicit_bzero(&dinv, sizeof dinv);
    explicit_bzero(&z, sizeof z);
    explicit_bzero(&t, sizeof t);
    explicit_bzero(&prod, sizeof prod);

    /* Identity points would be rejected by every reader (including ours):
     * they occur only if a query scalar is 0, i.e. with probability ~n/r
     * for a well-formed circuit. Check rather than write a bad file. */
    for (size_t i = 0; i < p->n_l && st == CZ_OK; i++)
        if (cz_g1_affine_is_infinity(&p->l[i]))
            st = cz_err(err, CZ_ERR_INVALID_ARG, "setup: l point of aux %zu is the identity", i);
    for (size_t i = 0; i < p->n_a && st == CZ_OK; i++)
        if (cz_g1_affine_is_infinity(&p->a[i]))
            st = cz_err(err, CZ_ERR_INVALID_ARG, "setup: a query point %zu is the identity", i);
    for (size_t i = 0; i < p->n_b && st == CZ_OK; i++)
        if (cz_g1_affine_is_infinity(&p->b_g1[i]))
            st = cz_err(err, CZ_ERR_INVALID_ARG, "setup: b query point %zu is the identity", i);
    for (size_t i = 0; i < p->vk.n_ic && st == CZ_OK; i++)
        if (cz_g1_affine_is_infinity(&p->vk.ic[i]))
            st = cz_err(err, CZ_ERR_INVALID_ARG, "setup: ic point of input %zu is the identity", i);
done:
    explicit_bzero(toxic, sizeof toxic);
    wipe_free(L, L_bytes);
    wipe_free(u, var_bytes);
    wipe_free(v, var_bytes);
    wipe_free(w, var_bytes);
    wipe_free(sc, sc_n * sizeof(cz_fr));
    free(used);
    /* The comb tables hold only multiples of the generators (public), but
     * they are wiped like every other setup buffer, so that no secret-
     * adjacent buffer of setup is ever freed unwiped (cheap: ~300 KiB). */
    wipe_free(c1, sizeof *c1);
    wipe_free(c2, sizeof *c2);
    if (st != CZ_OK) {
        free(ho);
        cz_groth16_params_free(p);
        return st;
    }
    if (opts && opts->h_odd_out) *opts->h_odd_out = ho;
    *out = p;
    return CZ_OK;
}
