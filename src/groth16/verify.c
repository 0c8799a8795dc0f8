/*
 * Groth16 verification with a prepared key.
 *
 * Check: e(A, B) = e(alpha, beta) · e(acc, gamma) · e(C, delta), with
 * acc = IC_0 + sum x_i IC_i. Written as one product of Miller loops
 * e(A, B) · e(acc, -gamma) · e(C, -delta) followed by one final
 * exponentiation, compared with the precomputed e(alpha, beta).
 */
#include "cuzk/groth16.h"
#include "cuzk/msm.h"
#include <stdlib.h>
#include <string.h>

struct cz_groth16_pvk {
    cz_fp12 alphabeta;
    cz_g2_prepared neg_gamma, neg_delta;
    cz_g1_affine *ic;
    size_t n_ic;
};

cz_status cz_groth16_pvk_create(cz_groth16_pvk **out, const cz_groth16_vk *vk)
{
    *out = NULL;
    if (vk->n_ic == 0) return CZ_ERR_INVALID_ARG;
    cz_groth16_pvk *p = calloc(1, sizeof *p);
    if (!p) return CZ_ERR_NOMEM;
    p->ic = malloc(vk->n_ic * sizeof *p->ic);
    if (!p->ic) {
        free(p);
        return CZ_ERR_NOMEM;
    }
    memcpy(p->ic, vk->ic, vk->n_ic * sizeof *p->ic);
    p->n_ic = vk->n_ic;
    cz_pairing(&p->alphabeta, &vk->alpha_g1, &vk->beta_g2);
    cz_g2_affine t;
    cz_g2_affine_neg(&t, &vk->gamma_g2);
    cz_g2_prepare(&p->neg_gamma, &t);
    cz_g2_affine_neg(&t, &vk->delta_g2);
    cz_g2_prepare(&p->neg_delta, &t);
    *out = p;
    return CZ_OK;
}

void cz_groth16_pvk_free(cz_groth16_pvk *pvk)
{
    if (!pvk) return;
    free(pvk->ic);
    free(pvk);
}

/* acc = IC_0 + sum x_i IC_{i+1} (variable time: public inputs). */
static cz_status input_acc(cz_g1_jac *acc, const cz_groth16_pvk *pvk, const cz_fr *x, size_t n)
{
    cz_scalar *s = malloc((n ? n : 1) * sizeof *s);
    if (!s) return CZ_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) cz_scalar_from_fr(&s[i], &x[i]);
    cz_status st = cz_msm_g1(acc, pvk->ic + 1, s, n, NULL, NULL);
    free(s);
    if (st != CZ_OK) return st;
    cz_g1_jac_add_affine(acc, acc, &pvk->ic[0]);
    return CZ_OK;
}

cz_status cz_groth16_verify(const cz_groth16_pvk *pvk, const cz_groth16_proof *proof, const cz_fr *x,
                            size_t n_public, cz_errbuf *err)
{
    if (n_public + 1 != pvk->n_ic)
        return cz_err(err, CZ_ERR_MISMATCH, "verify: %zu public inputs given, the key expects %zu", n_public,
                      pvk->n_ic - 1);
    cz_g1_jac acc;
    cz_status st = input_acc(&acc, pvk, x, n_public);
    if (st != CZ_OK) return cz_err(err, st, "verify: %s", cz_status_str(st));
    cz_g1_affine p[3];
    cz_g1_jac_to_affine(&p[0], &acc);
    p[1] = proof->c;
    p[2] = proof->a;
    /* preparing B (~77 us) and sharing one 3-pair loop is cheaper than a
     * separate Miller loop for e(A, B), which would repeat the squarings */
    cz_g2_prepared *pb = malloc(sizeof *pb);
    if (!pb) return cz_err(err, CZ_ERR_NOMEM, "verify: out of memory");
    cz_g2_prepare(pb, &proof->b);
    const cz_g2_prepared *q[3] = {&pvk->neg_gamma, &pvk->neg_delta, pb};
    cz_fp12 f;
    cz_miller_loop_prepared(&f, p, q, 3);
    free(pb);
    cz_final_exp(&f, &f);
    if (!cz_fp12_eq(&f, &pvk->alphabeta))
        return cz_err(err, CZ_ERR_UNSATISFIED, "verify: proof is invalid (pairing check failed)");
    return CZ_OK;
}

cz_status cz_groth16_verify_batch(const cz_groth16_pvk *pvk, const cz_groth16_proof *proofs,
                                  const cz_fr *const *inputs, size_t n_public, size_t n, cz_errbuf *err)
{
    if (n == 0) return CZ_OK;
    if (n_public + 1 != pvk->n_ic)
        return cz_err(err, CZ_ERR_MISMATCH, "verify: %zu public inputs given, the key expects %zu", n_public,
                      pvk->n_ic - 1);
    cz_status st = CZ_OK;
    cz_g1_affine *pa = malloc(n * sizeof *pa);
    cz_g2_affine *pb = malloc(n * sizeof *pb);
    cz_scalar *z = malloc(n * sizeof *z);
    cz_g1_affine *accs = malloc(n * sizeof *accs);
    cz_g1_affine *cs = malloc(n * sizeof *cs);
    if (!pa || !pb || !z || !accs || !cs) {
        st = cz_err(err, CZ_ERR_NOMEM, "verify_batch: out of memory for %zu proofs", n);
        goto done;
    }
    /* weights: 128 random bits each (soundness error 2^-128) */
    cz_fr zsum = CZ_FR_ZERO;
    for (size_t k = 0; k < n; k++) {
        cz_fr t;
        if ((st = cz_fr_random(&t)) != CZ_OK) {
            st = cz_err(err, st, "verify_batch: no randomness");
            goto done;
        }
        cz_scalar_from_fr(&z[k], &t);
        z[k].l[2] = z[k].l[3] = 0;
        if ((z[k].l[0] | z[k].l[1]) == 0) z[k].l[0] = 1;
        cz_fr zk;
        if ((st = cz_fr_from_raw(&zk, z[k].l)) != CZ_OK) goto done;
        cz_fr_add(&zsum, &zsum, &zk);
        cz_g1_jac j, a;
        if ((st = input_acc(&j, pvk, inputs[k], n_public)) != CZ_OK) goto done;
        cz_g1_jac_to_affine(&accs[k], &j);
        cs[k] = proofs[k].c;
        cz_g1_jac_from_affine(&a, &proofs[k].a);
        cz_g1_jac_mul_var(&a, &a, z[k].l, 2);
        cz_g1_jac_to_affine(&pa[k], &a);
        pb[k] = proofs[k].b;
    }
    cz_g1_jac sacc, sc;
    if ((st = cz_msm_g1(&sacc, accs, z, n, NULL, NULL)) != CZ_OK) goto done;
    if ((st = cz_msm_g1(&sc, cs, z, n, NULL, NULL)) != CZ_OK) goto done;
    cz_g1_affine p[2];
    cz_g1_jac_to_affine(&p[0], &sacc);
    cz_g1_jac_to_affine(&p[1], &sc);
    const cz_g2_prepared *q[2] = {&pvk->neg_gamma, &pvk->neg_delta};
    cz_fp12 f, g, ab;
    cz_miller_loop_prepared(&f, p, q, 2);
    cz_miller_loop_multi(&g, pa, pb, n);
    cz_fp12_mul(&f, &f, &g);
    cz_final_exp(&f, &f);
    uint64_t e[4];
    cz_fr_to_raw(e, &zsum);
    cz_fp12_pow(&ab, &pvk->alphabeta, e, 4);
    if (!cz_fp12_eq(&f, &ab))
        st = cz_err(err, CZ_ERR_UNSATISFIED, "verify_batch: at least one of the %zu proofs is invalid", n);
done:
    free(pa);
    free(pb);
    free(z);
    free(accs);
    free(cs);
    return st;
}
