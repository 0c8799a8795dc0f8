/* snarkjs-compatible Groth16 prover over a .zkey (see cuzk/snarkjs.h). */
#include "common/big_alloc.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/snarkjs.h"
#include "interop_internal.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "common/mono_clock.h"

cz_status cz_snarkjs_zkey_vk(cz_groth16_vk *vk, const cz_snarkjs_zkey *z)
{
    memset(vk, 0, sizeof *vk);
    vk->alpha_g1 = z->alpha1;
    vk->beta_g1 = z->beta1;
    vk->delta_g1 = z->delta1;
    vk->beta_g2 = z->beta2;
    vk->gamma_g2 = z->gamma2;
    vk->delta_g2 = z->delta2;
    vk->n_ic = (size_t)z->n_public + 1;
    vk->ic = malloc(vk->n_ic * sizeof *vk->ic);
    if (!vk->ic) return CZ_ERR_NOMEM;
    memcpy(vk->ic, z->ic, vk->n_ic * sizeof *vk->ic);
    return CZ_OK;
}

cz_status cz_snarkjs_vk_to_groth16(cz_groth16_vk *vk, const cz_snarkjs_vk *in)
{
    memset(vk, 0, sizeof *vk);
    vk->alpha_g1 = in->alpha1;
    vk->beta_g2 = in->beta2;
    vk->gamma_g2 = in->gamma2;
    vk->delta_g2 = in->delta2;
    vk->n_ic = in->n_public + 1;
    vk->ic = malloc(vk->n_ic * sizeof *vk->ic);
    if (!vk->ic) return CZ_ERR_NOMEM;
    memcpy(vk->ic, in->ic, vk->n_ic * sizeof *vk->ic);
    return CZ_OK;
}

/*
 * snarkjs (ffjavascript) builds its roots of unity from the smallest
 * quadratic non-residue, 5: w'_k = 5^((r-1)/2^k); cuzk's are 7-based. Both
 * are primitive, so w'_32 = w_32^K for an odd K, and then w'_n = w_n^K and
 * w'_2n = w_2n^K (K mod n, resp. mod 2n). snarkjs's constraint i lives at
 * the point w'_n^i = w_n^(K·i): its value goes to our index K·i mod n. Its
 * H point i belongs to w'_2n^(2i+1) = w_2n^(K(2i+1)), which is our odd-coset
 * index (K(2i+1) - 1)/2 mod n. K is found once by Pohlig–Hellman in the
 * 2-group (32 steps).
 */
uint64_t cz__snarkjs_root_exponent(void)
{
    static _Atomic uint64_t cached;
    uint64_t k = cached;
    if (k) return k;
    /* t = (r - 1) / 2^32 */
    uint64_t t[4];
    memcpy(t, CZ_FR_MODULUS, sizeof t);
    t[0] -= 1;
    for (int i = 0; i < 4; i++) t[i] = (t[i] >> 32) | (i < 3 ? t[i + 1] << 32 : 0);
    cz_fr five, w5, w7, w7inv, x;
    cz_fr_from_u64(&five, 5);
    cz_fr_pow(&w5, &five, t, 4);
    cz_fr_root_of_unity(&w7, 32);
    cz_fr_inv(&w7inv, &w7);
    /* find k with w7^k = w5, bit by bit: (w5·w7^-k)^(2^(31-b)) = 1 iff bit b of the rest is 0 */
    k = 0;
    cz_fr w7inv_pow = w7inv; /* w7^-(2^b) */
    cz_fr acc = w5;          /* w5 · w7^-k */
    for (int b = 0; b < 32; b++) {
        x = acc;
        for (int j = 0; j < 31 - b; j++) cz_fr_sqr(&x, &x);
        if (!cz_fr_is_one(&x)) {
            k |= 1ULL << b;
            cz_fr_mul(&acc, &acc, &w7inv_pow);
        }
        cz_fr_sqr(&w7inv_pow, &w7inv_pow);
    }
    cached = k;
    return k;
}

/* b[i] = a[perm(i)]: snarkjs's H order (H_i pairs with the odd-coset point
 * w_2n^(K(2i+1)), cuzk's a[j] with w_2n^(2j+1)), converted to scalars. */
typedef struct {
    const cz_fr *a;
    cz_scalar *out;
    uint64_t K, mask2; /* mask2 = 2n - 1 */
} gather_ctx;

static void gather_range(void *arg, size_t lo, size_t hi)
{
    gather_ctx *g = arg;
    for (size_t i = lo; i < hi; i++) {
        size_t j = (size_t)(((g->K * (2 * (uint64_t)i + 1)) & g->mask2) >> 1);
        cz_scalar_from_fr(&g->out[i], &g->a[j]);
    }
}

void cz_snarkjs_zkey_tables_bases(const cz_snarkjs_zkey *z, const void *bases[CZ_GROTH16_NQ],
                                  size_t n[CZ_GROTH16_NQ])
{
    bases[CZ_GROTH16_Q_H] = z->h;
    n[CZ_GROTH16_Q_H] = z->domain_size;
    bases[CZ_GROTH16_Q_L] = z->c;
    n[CZ_GROTH16_Q_L] = (size_t)z->n_vars - z->n_public - 1;
    bases[CZ_GROTH16_Q_A] = z->a;
    bases[CZ_GROTH16_Q_B_G1] = z->b1;
    bases[CZ_GROTH16_Q_B_G2] = z->b2;
    n[CZ_GROTH16_Q_A] = n[CZ_GROTH16_Q_B_G1] = n[CZ_GROTH16_Q_B_G2] = z->n_vars;
}

static cz_status prove_once(cz_groth16_proof_pts *proof, const cz_snarkjs_zkey *z, const cz_groth16_tables *tabs,
                            const cz_fr *w, size_t n, cz_pool *pool, const cz_fr *test_rs,
                            cz_snarkjs_prove_timings *tm, cz_errbuf *err);

cz_status cz_snarkjs_prove(cz_groth16_proof_pts *proof, const cz_snarkjs_zkey *z, const cz_fr *w, size_t n,
                           cz_pool *pool, const cz_fr *test_rs, cz_errbuf *err)
{
    return prove_once(proof, z, NULL, w, n, pool, test_rs, NULL, err);
}

cz_status cz_snarkjs_prove_tables(cz_groth16_proof_pts *proof, const cz_snarkjs_zkey *z,
                                  const cz_groth16_tables *tabs, const cz_fr *w, size_t n, cz_pool *pool,
                                  const cz_fr *test_rs, bool *tables_bad, cz_snarkjs_prove_timings *timings,
                                  cz_errbuf *err)
{
    *tables_bad = false;
    cz_status st = prove_once(proof, z, tabs, w, n, pool, test_rs, timings, err);
    if (!tabs || (st != CZ_ERR_UNSATISFIED && st != CZ_ERR_NOT_IN_SUBGROUP)) return st;
    /* The proof failed its own check: the witness, the key or the tables.
     * Without the tables it tells which (a second proof, paid only here). */
    cz_errbuf e2 = {{0}};
    cz_status st2 = prove_once(proof, z, NULL, w, n, pool, test_rs, timings, &e2);
    if (st2 == CZ_OK) {
        *tables_bad = true;
        return CZ_OK;
    }
    if (err) *err = e2;
    return st2;
}

/* The scratch bound of one G1 MSM over n points, with the table set tb
 * (NULL: the plain MSM). */
static size_t g1_scratch(size_t n, const cz_msm_g1_tables *tb, cz_pool *pool)
{
    return tb ? cz_msm_g1_tables_scratch_size(n, cz_msm_g1_tables_count(tb), cz_msm_g1_tables_bits(tb), pool, NULL)
              : cz_msm_g1_scratch_size(n, pool, NULL);
}

static cz_status prove_once(cz_groth16_proof_pts *proof, const cz_snarkjs_zkey *z, const cz_groth16_tables *tabs,
                            const cz_fr *w, size_t n, cz_pool *pool, const cz_fr *test_rs,
                            cz_snarkjs_prove_timings *tm, cz_errbuf *err)
{
    cz_snarkjs_prove_timings tl = {0};
    if (!tm) tm = &tl;
    memset(tm, 0, sizeof *tm);
    if (tabs) {
        /* each set must be over this key's query (a caller's mix-up would
         * otherwise read past the scalars) */
        const void *qb[CZ_GROTH16_NQ];
        size_t qn[CZ_GROTH16_NQ];
        cz_snarkjs_zkey_tables_bases(z, qb, qn);
        static const char *const name[CZ_GROTH16_NQ] = {"H", "C", "A", "B1", "B2"};
        for (int q = 0; q < CZ_GROTH16_NQ; q++) {
            size_t tn;
            unsigned tt, tb;
            (void)cz_groth16_tables_points(tabs, q, &tn, &tt, &tb);
            if (tt && tn != qn[q])
                return cz_err(err, CZ_ERR_MISMATCH,
                              "prove: the MSM tables of %s are over %zu bases, the key's %s has %zu", name[q], tn,
                              name[q], qn[q]);
        }
    }
    if (n != z->n_vars)
        return cz_err(err, CZ_ERR_MISMATCH, "prove: witness has %zu values, the zkey expects nVars = %u", n,
                      z->n_vars);
    if (!cz_fr_is_one(&w[0]))
        return cz_err(err, CZ_ERR_UNSATISFIED, "prove: witness value 0 (the constant one) is not 1");
    size_t dn = z->domain_size;
    unsigned logn = 0;
    while (((size_t)1 << logn) < dn) logn++;
    if (logn + 1 > 32) return cz_err(err, CZ_ERR_UNSUPPORTED, "prove: domain 2^%u too large", logn);
    cz_status st = CZ_OK;
    cz_ntt_domain *d = NULL;
    cz_msm_opts so = {0};
    cz_fr *a = cz_big_alloc_array(dn, sizeof *a), *b = cz_big_alloc_array(dn, sizeof *b),
          *c = cz_big_alloc_array(dn, sizeof *c);
    cz_scalar *ws = cz_big_alloc_array(n ? n : 1, sizeof *ws);
    if (!a || !b || !c || !ws) {
        st = cz_err(err, CZ_ERR_NOMEM, "prove: out of memory for domain %zu", dn);
        goto done;
    }
    if ((st = cz_ntt_domain_create(&d, logn, pool)) != CZ_OK) {
        st = cz_err(err, st, "prove: NTT domain 2^%u: %s", logn, cz_status_str(st));
        goto done;
    }
    /* the MSM scalars (the witness out of Montgomery form) first: §4's
     * records, when the key keeps them, are evaluated against them */
    double c0 = cz_mono_ms();
    cz_msm_scalars_from_fr(ws, w, n, pool);
    /* a, b from §4 and c = a∘b, already in cuzk's row order */
    if ((st = cz__snarkjs_eval_abc_raw(z, w, ws, n, a, b, c, pool, err)) != CZ_OK) goto done;
    double c1 = cz_mono_ms();
    tm->abc_ms = c1 - c0;
    /* a <- (A·B − C) on the odd coset w_2n·<w_n>, in cuzk's order */
    cz_quotient_odd_coset(pool, d, a, b, c);
    /* gathered into snarkjs's H order as scalars (b is free scratch now) */
    gather_ctx g = {a, (cz_scalar *)b, cz__snarkjs_root_exponent(), 2 * (uint64_t)dn - 1};
    cz_pool_parallel_range(pool, 0, dn, 4096, gather_range, &g);
    const cz_scalar *hs = (const cz_scalar *)b;

    cz_g1_jac pa, pb1, pc, t1;
    cz_g2_jac pb;
    size_t npriv = (size_t)z->n_vars - z->n_public - 1;
    /* C and H in one MSM: both enter pi_c with coefficient 1, and one
     * Pippenger over both shares the bucket reductions */
    const cz_msm_g1_seg ch[2] = {{z->h, hs, dn}, {z->c, ws + z->n_public + 1, npriv}};
    /* with tables where the set has them (cz_groth16_tables_g1 is NULL for
     * a query without), the same sums */
    const cz_msm_g1_tables *ta = cz_groth16_tables_g1(tabs, CZ_GROTH16_Q_A);
    const cz_msm_g1_tables *tb1 = cz_groth16_tables_g1(tabs, CZ_GROTH16_Q_B_G1);
    const cz_msm_g2_tables *tb2 = cz_groth16_tables_g2(tabs);
    const cz_msm_g1_tables *thc[2] = {cz_groth16_tables_g1(tabs, CZ_GROTH16_Q_H),
                                      cz_groth16_tables_g1(tabs, CZ_GROTH16_Q_L)};
    /* One scratch block for the four MSMs, which run one after another:
     * each allocating its own maps fresh pages and faults them in again
     * (a quarter of a shaped-16 process's page faults were the later MSMs
     * faulting in scratch pages the first one had already written;
     * BENCHMARKS.md "A .zkey process's fixed costs"). The
     * block is the largest of their bounds; the pages it makes resident
     * are the union of those the four write, at most its size (a
     * one-shot prover has no memory budget to keep; the back-end's
     * prover shares only between equal layouts for that reason,
     * groth16/prover.c). Without the block, each MSM allocates its own. */
    const size_t nch = dn + npriv;
    size_t s_max = g1_scratch(n, ta, pool), sz;
    if ((sz = g1_scratch(n, tb1, pool)) > s_max) s_max = sz;
    for (int k = 0; k < 2; k++)
        if ((sz = g1_scratch(nch, thc[k], pool)) > s_max) s_max = sz;
    sz = tb2 ? cz_msm_g2_tables_scratch_size(n, cz_msm_g2_tables_count(tb2), cz_msm_g2_tables_bits(tb2), pool, NULL)
             : cz_msm_g2_scratch_size(n, pool, NULL);
    if (sz > s_max) s_max = sz;
    so.scratch = malloc(s_max);
    so.scratch_size = s_max;
    const cz_msm_opts *o = so.scratch ? &so : NULL;
    double c2 = cz_mono_ms();
    tm->quotient_ms = c2 - c1;
    if ((st = ta ? cz_msm_g1_tables_msm(&pa, ta, ws, pool, o) : cz_msm_g1(&pa, z->a, ws, n, pool, o)) != CZ_OK)
        goto msm_failed;
    double c3 = cz_mono_ms();
    tm->msm_a_ms = c3 - c2;
    if ((st = tb1 ? cz_msm_g1_tables_msm(&pb1, tb1, ws, pool, o) : cz_msm_g1(&pb1, z->b1, ws, n, pool, o)) !=
        CZ_OK)
        goto msm_failed;
    double c4 = cz_mono_ms();
    tm->msm_b1_ms = c4 - c3;
    if ((st = tb2 ? cz_msm_g2_tables_msm(&pb, tb2, ws, pool, o) : cz_msm_g2(&pb, z->b2, ws, n, pool, o)) !=
        CZ_OK)
        goto msm_failed;
    double c5 = cz_mono_ms();
    tm->msm_b2_ms = c5 - c4;
    if ((st = thc[0] || thc[1] ? cz_msm_g1_tables_concat(&pc, ch, thc, 2, pool, o)
                               : cz_msm_g1_concat(&pc, ch, 2, pool, o)) != CZ_OK)
        goto msm_failed;
    double c6 = cz_mono_ms();
    tm->msm_ch_ms = c6 - c5;
    /* The sums must lie on the curve: a key point off its curve (a key
     * read with CZ_SNARKJS_NO_QUERY_CHECK) can only reach a proof through
     * them, and from here on everything is group arithmetic on points of
     * the curve (why: snarkjs.h). B1 enters the proof's C. */
    const char *offc = !cz_g1_jac_is_on_curve(&pa)    ? "A"
                       : !cz_g2_jac_is_on_curve(&pb)  ? "B"
                       : !cz_g1_jac_is_on_curve(&pb1) ? "C"
                       : !cz_g1_jac_is_on_curve(&pc)  ? "C"
                                                      : NULL;
    if (offc) {
        st = cz_err(err, CZ_ERR_NOT_IN_SUBGROUP,
                    "prove: the MSM sum behind the proof's %s is off the curve: a query point of the zkey is", offc);
        goto done;
    }

    cz_fr rs[3];
    if (test_rs) {
        rs[0] = test_rs[0];
        rs[1] = test_rs[1];
    } else if ((st = cz_fr_random(&rs[0])) != CZ_OK || (st = cz_fr_random(&rs[1])) != CZ_OK) {
        st = cz_err(err, st, "prove: cannot read the OS random number generator");
        goto done;
    }
    cz_fr_mul(&rs[2], &rs[0], &rs[1]);
    cz_scalar r, s, rsk;
    cz_scalar_from_fr(&r, &rs[0]);
    cz_scalar_from_fr(&s, &rs[1]);
    cz_scalar_from_fr(&rsk, &rs[2]);
    cz_g1_jac d1;
    cz_g2_jac d2, t2;
    cz_g1_jac_from_affine(&d1, &z->delta1);
    cz_g2_jac_from_affine(&d2, &z->delta2);
    /* pi_a = A + alpha1 + r delta1 */
    cz_g1_jac_add_affine(&pa, &pa, &z->alpha1);
    cz_g1_jac_mul_ct(&t1, &d1, &r);
    cz_g1_jac_add(&pa, &pa, &t1);
    /* pi_b = B2 + beta2 + s delta2 */
    cz_g2_jac_add_affine(&pb, &pb, &z->beta2);
    cz_g2_jac_mul_ct(&t2, &d2, &s);
    cz_g2_jac_add(&pb, &pb, &t2);
    /* pib1 = B1 + beta1 + s delta1 */
    cz_g1_jac_add_affine(&pb1, &pb1, &z->beta1);
    cz_g1_jac_mul_ct(&t1, &d1, &s);
    cz_g1_jac_add(&pb1, &pb1, &t1);
    /* pi_c = (C + H) + s pi_a + r pib1 - r s delta1 */
    cz_g1_jac_mul_ct(&t1, &pa, &s);
    cz_g1_jac_add(&pc, &pc, &t1);
    cz_g1_jac_mul_ct(&t1, &pb1, &r);
    cz_g1_jac_add(&pc, &pc, &t1);
    cz_g1_jac_mul_ct(&t1, &d1, &rsk);
    cz_g1_jac_neg(&t1, &t1);
    cz_g1_jac_add(&pc, &pc, &t1);
    cz_g1_jac_to_affine(&proof->a, &pa);
    cz_g2_jac_to_affine(&proof->b, &pb);
    cz_g1_jac_to_affine(&proof->c, &pc);
    explicit_bzero(rs, sizeof rs);
    explicit_bzero(&r, sizeof r);
    explicit_bzero(&s, sizeof s);
    explicit_bzero(&rsk, sizeof rsk);
    explicit_bzero(&t1, sizeof t1);
    explicit_bzero(&t2, sizeof t2);

    /* self-verification: the zkey has no C matrix to check the witness.
     * The proof points' subgroup tests come first (why: snarkjs.h); they
     * are on the curve, since the MSM sums were tested above and the rest
     * is group arithmetic on checked points. */
    const char *off = !cz_g1_affine_in_subgroup(&proof->a)   ? "A"
                      : !cz_g2_affine_in_subgroup(&proof->b) ? "B"
                      : !cz_g1_affine_in_subgroup(&proof->c) ? "C"
                                                             : NULL;
    if (off) {
        st = cz_err(err, CZ_ERR_NOT_IN_SUBGROUP,
                    "prove: the proof's %s is outside the prime-order subgroup: a query point of the zkey is", off);
        goto done;
    }
    cz_groth16_vk vk;
    cz_groth16_pvk *pvk = NULL;
    if ((st = cz_snarkjs_zkey_vk(&vk, z)) != CZ_OK || (st = cz_groth16_pvk_create(&pvk, &vk)) != CZ_OK) {
        free(vk.ic);
        st = cz_err(err, st, "prove: cannot prepare the verifying key");
        goto done;
    }
    cz_groth16_proof pr = {proof->a, proof->b, proof->c};
    st = cz_groth16_verify(pvk, &pr, w + 1, z->n_public, NULL);
    cz_groth16_pvk_free(pvk);
    free(vk.ic);
    if (st == CZ_ERR_UNSATISFIED)
        st = cz_err(err, CZ_ERR_UNSATISFIED, "prove: witness does not satisfy the circuit (self-verification "
                                             "failed; pass the .r1cs to find the failing constraint)");
    else if (st != CZ_OK)
        st = cz_err(err, st, "prove: self-verification: %s", cz_status_str(st));
    tm->finish_ms = cz_mono_ms() - c6;
    goto done;
msm_failed:
    st = cz_err(err, st, "prove: MSM failed: %s", cz_status_str(st));
done:
    if (st != CZ_OK) memset(proof, 0, sizeof *proof); /* nothing half-made leaves */
    cz_ntt_domain_free(d);
    free(so.scratch);
    free(a);
    free(b);
    free(c);
    free(ws);
    return st;
}
