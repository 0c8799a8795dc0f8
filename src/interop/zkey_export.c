/*
 * Export of cuzk parameters as a snarkjs .zkey (and witnesses as .wtns), so
 * snarkjs can prove and verify cuzk's own circuits at sizes where running a
 * snarkjs ceremony is impractical (docs/design.md §3.5: prepare phase2 alone takes
 * ~16 min at 2^14 on this machine).
 *
 * Index mapping (see zkey_prove.c): cuzk's row i sits at w_m^i; snarkjs's
 * constraint c at w'_m^c = w_m^(K·c). So row i is written as constraint
 * c = K^-1·i mod m, and snarkjs's H point c, for w'_2m^(2c+1), is cuzk's
 * odd-coset point (K(2c+1) - 1)/2 mod m.
 */
#include "cuzk/snarkjs.h"
#include "interop_internal.h"
#include <stdlib.h>
#include <string.h>

static bool bit(const uint64_t *bm, uint64_t i) { return (bm[i / 64] >> (i % 64)) & 1; }

static uint64_t inv_mod_pow2(uint64_t k)
{
    /* Newton: x <- x(2 - kx) doubles the correct low bits each step */
    uint64_t x = k;
    for (int i = 0; i < 6; i++) x *= 2 - k * x;
    return x;
}

cz_status cz_snarkjs_zkey_from_params(cz_snarkjs_zkey **out, const cz_groth16_params *p, const cz_pce *pce,
                                      const cz_g1_affine *h_odd, cz_errbuf *err)
{
    *out = NULL;
    cz_status st = cz_groth16_params_check_shape(p, pce, err);
    if (st != CZ_OK) return st;
    uint64_t m = cz_groth16_params_domain(p), mask = m - 1;
    uint64_t nvars = pce->n_inputs + pce->n_aux;
    if (nvars > UINT32_MAX || m > (1ULL << 31))
        return cz_err(err, CZ_ERR_UNSUPPORTED, "zkey export: circuit too large for the zkey format");
    cz_snarkjs_zkey *z = calloc(1, sizeof *z);
    if (!z) return cz_err(err, CZ_ERR_NOMEM, "zkey export: out of memory");
    z->n_vars = (uint32_t)nvars;
    z->n_public = (uint32_t)(pce->n_inputs - 1);
    z->domain_size = (uint32_t)m;
    z->alpha1 = p->vk.alpha_g1;
    z->beta1 = p->vk.beta_g1;
    z->delta1 = p->vk.delta_g1;
    z->beta2 = p->vk.beta_g2;
    z->gamma2 = p->vk.gamma_g2;
    z->delta2 = p->vk.delta_g2;
    z->n_coefs = pce->a.nnz + pce->b.nnz;
    z->ic = malloc(p->vk.n_ic * sizeof *z->ic);
    z->coefs = malloc((z->n_coefs ? z->n_coefs : 1) * sizeof *z->coefs);
    z->a = calloc(nvars, sizeof *z->a);
    z->b1 = calloc(nvars, sizeof *z->b1);
    z->b2 = calloc(nvars, sizeof *z->b2);
    z->c = malloc((pce->n_aux ? pce->n_aux : 1) * sizeof *z->c);
    z->h = malloc(m * sizeof *z->h);
    if (!z->ic || !z->coefs || !z->a || !z->b1 || !z->b2 || !z->c || !z->h) {
        cz_snarkjs_zkey_free(z);
        return cz_err(err, CZ_ERR_NOMEM, "zkey export: out of memory");
    }
    memcpy(z->ic, p->vk.ic, p->vk.n_ic * sizeof *z->ic);
    memcpy(z->c, p->l, pce->n_aux * sizeof *z->c);
    const uint64_t K = cz__snarkjs_root_exponent(), Kinv = inv_mod_pow2(K);
    size_t k = 0;
    for (int mat = 0; mat < 2; mat++) {
        const cz_csr *M = mat ? &pce->b : &pce->a;
        for (uint64_t row = 0; row < pce->n_constraints; row++) {
            for (uint64_t t = M->row_ptr[row]; t < M->row_ptr[row + 1]; t++) {
                cz_var v = M->col[t];
                cz_zkey_coef *c = &z->coefs[k++];
                c->matrix = (uint32_t)mat;
                c->constraint = (uint32_t)((Kinv * row) & mask);
                c->signal = (uint32_t)(cz_var_is_aux(v) ? pce->n_inputs + cz_var_index(v) : cz_var_index(v));
                c->value = pce->coeffs[M->coef[t]];
            }
        }
    }
    /* A, B1, B2 over every signal: the identity where the density is 0 */
    size_t ia = 0, ib = 0;
    for (uint64_t j = 0; j < nvars; j++) {
        bool in = j < pce->n_inputs;
        if (in || bit(pce->dens_a_aux, j - pce->n_inputs)) z->a[j] = p->a[ia++];
        if (in ? bit(pce->dens_b_input, j) : bit(pce->dens_b_aux, j - pce->n_inputs)) {
            z->b1[j] = p->b_g1[ib];
            z->b2[j] = p->b_g2[ib++];
        }
    }
    for (uint64_t c = 0; c < m; c++) z->h[c] = h_odd[((K * (2 * c + 1)) & (2 * mask + 1)) >> 1];
    *out = z;
    return CZ_OK;
}
