/*
 * Host test of the GPU prover's plumbing, without a GPU: the G1 half of
 * cz_cuda_prove_start (src/cuda/prove_cuda.c) is replayed on the host with
 * the same per-thread bodies (dev_algo.h: row check, scalar conversion,
 * density prefix + gather into one [inputs ‖ dense aux] array per MSM) and
 * the CPU quotient / MSMs, then handed to prove_finish through the internal
 * API (cz_groth16_pending_begin / _set_g1, src/groth16/prover_parts.c).
 * The proof must equal, byte for byte, the CPU prover's for the same r, s,
 * and verify; a tampered witness must be caught by the row check.
 */
#include "testutil.h"
#include "cuda/dev_algo.h"
#include "cuzk/circuits.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "groth16/groth16_internal.h"
#include <stdlib.h>
#include <string.h>

static cz_pool *pool, *bg;

static int setup(void **state)
{
    (void)state;
    cz_test_seed();
    if (cz_pool_create(&pool, 2, "parts") != CZ_OK) return -1;
    if (cz_pool_create(&bg, 1, "partsbg") != CZ_OK) return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cz_pool_destroy(pool);
    cz_pool_destroy(bg);
    return 0;
}

/* dense array = gather of src (nsrc entries) by bitmap bm, as the device does */
static void gather(cz_scalar *dst, const cz_scalar *src, uint64_t nsrc, const uint64_t *bm)
{
    uint64_t nw = (nsrc + 63) / 64;
    uint32_t *pref = malloc((nw ? nw : 1) * sizeof *pref);
    cz_d_density_prefix(pref, bm, nsrc);
    for (uint64_t k = 0; k < nsrc; k++) cz_d_gather_density(dst, src, bm, pref, k);
    free(pref);
}

/* the G1 half of cz_cuda_prove_start, on the host */
static cz_status emu_prove_start(cz_groth16_pending **out, const cz_groth16_params *params, const cz_pce *pce,
                                 cz_groth16_input *in)
{
    const cz_witness *w = in->w;
    size_t m = in->m, n_in = w->n_inputs, n_aux = w->n_aux, nz = n_in + n_aux;
    cz_groth16_pending *p;
    cz_errbuf e;
    cz_status st = cz_groth16_pending_begin(&p, params, pce, w, pool, bg, &e);
    if (st != CZ_OK) return st;
    for (uint64_t i = 0; i < m; i++)
        if (cz_d_row_unsatisfied(in->a, in->b, in->c, i)) {
            cz_groth16_pending_free(p);
            return CZ_ERR_UNSATISFIED;
        }
    unsigned logm = 0;
    while (((size_t)1 << logm) < m) logm++;
    cz_ntt_domain *d;
    assert_int_equal(cz_ntt_domain_create(&d, logm, NULL), CZ_OK);
    cz_quotient_h(pool, d, in->a, in->b, in->c);
    cz_ntt_domain_free(d);
    cz_scalar *hs = (cz_scalar *)in->a;
    for (uint64_t i = 0; i < m - 1; i++) cz_d_scalar_from_mont(hs, in->a, i);
    cz_g1_jac H, L, A, B1;
    assert_int_equal(cz_msm_g1(&H, params->h, hs, m - 1, pool, NULL), CZ_OK);
    cz_scalar *z = malloc(nz * sizeof *z), *sc = malloc((params->n_a + params->n_b + 1) * sizeof *sc);
    for (uint64_t i = 0; i < n_in; i++) cz_d_scalar_from_mont(z, w->inputs, i);
    for (uint64_t i = 0; i < n_aux; i++) cz_d_scalar_from_mont(z + n_in, w->aux, i);
    assert_int_equal(cz_msm_g1(&L, params->l, z + n_in, n_aux, pool, NULL), CZ_OK);
    memcpy(sc, z, n_in * sizeof *sc);
    gather(sc + n_in, z + n_in, n_aux, pce->dens_a_aux);
    assert_int_equal(cz_msm_g1(&A, params->a, sc, params->n_a, pool, NULL), CZ_OK);
    gather(sc, z, n_in, pce->dens_b_input);
    gather(sc + p->nb_inputs, z + n_in, n_aux, pce->dens_b_aux);
    assert_int_equal(cz_msm_g1(&B1, params->b_g1, sc, params->n_b, pool, NULL), CZ_OK);
    free(z);
    free(sc);
    cz_groth16_timings t = { 1, 2, 3, 4, 5, 0, 0 };
    cz_groth16_pending_set_g1(p, &H, &L, &A, &B1, &t);
    *out = p;
    return CZ_OK;
}

static cz_status prove(const cz_mulchain *mc, const cz_pce *pce, const cz_groth16_params *params, bool emu,
                       bool tamper, uint8_t proof[192])
{
    size_t m = cz_groth16_params_domain(params);
    cz_witness w;
    cz_groth16_input in = { malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), m, &w };
    assert_int_equal(cz_synthesize(pce, cz_mulchain_synth, mc, pool, &w, in.a, in.b, in.c, m), CZ_OK);
    if (tamper) cz_fr_add(&in.c[2], &in.c[2], &CZ_FR_ONE);
    cz_fr rs[2];
    cz_rng_seed(cz_test_seed()); /* both provers draw the same r, s */
    cz_rng_fr(&rs[0]);
    cz_rng_fr(&rs[1]);
    cz_groth16_pending *p;
    cz_errbuf e;
    cz_status st = emu ? emu_prove_start(&p, params, pce, &in) : cz_groth16_prove_start(&p, params, pce, &in, pool, bg, &e);
    if (emu) {
        free(in.a);
        free(in.b);
        free(in.c);
    }
    if (st == CZ_OK) {
        cz_groth16_timings t;
        st = cz_groth16_prove_finish(p, rs, proof, &t, &e);
        if (emu && st == CZ_OK) {
            assert_true(t.ntt_ms == 1 && t.msm_h_ms == 2 && t.msm_b_g1_ms == 5);
            assert_true(t.b_g2_ms >= 0);
        }
    }
    cz_witness_free(&w);
    return st;
}

static void test_parts_proof(void **state)
{
    (void)state;
    size_t sizes[2] = { 1, 200 };
    for (int k = 0; k < 2; k++) {
        cz_mulchain mc = { sizes[k], 3, CZ_FR_ZERO };
        cz_rng_fr(&mc.x0);
        cz_pce *pce;
        cz_groth16_params *params;
        cz_errbuf e;
        assert_int_equal(cz_pce_record(&pce, cz_mulchain_synth, &mc, NULL), CZ_OK);
        assert_int_equal(cz_groth16_setup(&params, pce, pool, NULL, &e), CZ_OK);
        uint8_t p1[192], p2[192];
        assert_int_equal(prove(&mc, pce, params, true, false, p1), CZ_OK);
        assert_int_equal(prove(&mc, pce, params, false, false, p2), CZ_OK);
        assert_memory_equal(p1, p2, 192);
        /* and it verifies */
        cz_groth16_pvk *pvk;
        cz_groth16_proof pr;
        cz_fr pub[5];
        cz_mulchain_public_inputs(&mc, pub);
        assert_int_equal(cz_groth16_pvk_create(&pvk, &params->vk), CZ_OK);
        assert_int_equal(cz_groth16_proof_decode(&pr, p1, &e), CZ_OK);
        assert_int_equal(cz_groth16_verify(pvk, &pr, pub, 5, &e), CZ_OK);
        cz_groth16_pvk_free(pvk);
        assert_int_equal(prove(&mc, pce, params, true, true, p1), CZ_ERR_UNSATISFIED);
        cz_groth16_params_free(params);
        cz_pce_free(pce);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_proof),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
