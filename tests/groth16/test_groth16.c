/*
 * Groth16 end to end on small random circuits: setup -> synthesize -> prove
 * (split API) -> verify, and every way a proof, a key or a file can be
 * wrong. The verifier is the pairing equation itself, so a prover bug (a
 * wrong C formula, a shifted density base) makes valid-proof tests fail.
 * snarkjs, an independent verifier, checks cuzk's proofs in test_snarkjs_e2e.
 */
#include "testutil.h"
#include "cuzk/groth16.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "groth16/groth16_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A random circuit: n_pub public inputs, n_steps multiplication gates over
 * random linear combinations (so A, B, C have mixed densities; some aux
 * appear only in C, some only in A), plus boolean-ish constraints. Values
 * follow the witness when the cs has values. */
typedef struct {
    unsigned n_pub, n_steps;
    uint64_t seed;
    int unused_aux;  /* allocate an aux in no constraint */
    int break_at;    /* make constraint #break_at unsatisfied (-1: none) */
    cz_fr pub[8];
} rc_ctx;

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 17;
}

static cz_status random_circuit(cz_cs *cs, const void *vctx)
{
    const rc_ctx *c = vctx;
    uint64_t s = c->seed;
    cz_var vars[256];
    cz_fr vals[256];
    size_t nv = 0;
    for (unsigned i = 0; i < c->n_pub; i++) {
        cz_cs_alloc_input(cs, &vars[nv], &c->pub[i]);
        vals[nv++] = c->pub[i];
    }
    cz_fr x;
    cz_fr_from_u64(&x, 3 + c->seed % 1000);
    cz_cs_alloc_aux(cs, &vars[nv], &x);
    size_t xi = nv; /* the first constraint uses x: a setup refuses an aux in no constraint */
    vals[nv++] = x;
    if (c->unused_aux) {
        cz_var dummy;
        cz_cs_alloc_aux(cs, &dummy, &x);
    }
    for (unsigned k = 0; k < c->n_steps && nv < 250; k++) {
        cz_lc a, b, cc;
        cz_lc_init(&a, cs);
        cz_lc_init(&b, cs);
        cz_lc_init(&cc, cs);
        cz_fr va = CZ_FR_ZERO, vb = CZ_FR_ZERO, coef, t;
        int na = 1 + (int)(lcg(&s) % 3), nb = (int)(lcg(&s) % 3);
        for (int i = 0; i < na; i++) {
            size_t j = lcg(&s) % nv;
            if (k == 0 && i == 0)
                j = xi;
            cz_fr_from_u64(&coef, 1 + lcg(&s) % 5);
            cz_lc_add(&a, vars[j], &coef);
            cz_fr_mul(&t, &coef, &vals[j]);
            cz_fr_add(&va, &va, &t);
        }
        if (nb == 0) { /* B = 1 (constant): a linear constraint */
            cz_lc_add_var(&b, CZ_VAR_ONE);
            vb = CZ_FR_ONE;
        }
        for (int i = 0; i < nb; i++) {
            size_t j = lcg(&s) % nv;
            cz_lc_add_var(&b, vars[j]);
            cz_fr_add(&vb, &vb, &vals[j]);
        }
        cz_fr prod;
        cz_fr_mul(&prod, &va, &vb);
        if ((int)k == c->break_at) cz_fr_add(&prod, &prod, &CZ_FR_ONE);
        cz_cs_alloc_aux(cs, &vars[nv], &prod);
        vals[nv] = prod;
        cz_lc_add_var(&cc, vars[nv]);
        nv++;
        cz_cs_enforce(cs, &a, &b, &cc, "step");
        cz_lc_free(&a);
        cz_lc_free(&b);
        cz_lc_free(&cc);
    }
    return CZ_OK;
}

typedef struct {
    cz_pce *pce;
    cz_groth16_params *params;
    cz_pool *pool;
    rc_ctx ctx;
} fixture;

static void make_ctx(rc_ctx *c, unsigned n_pub, unsigned steps, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->n_pub = n_pub;
    c->n_steps = steps;
    c->seed = seed;
    c->break_at = -1;
    for (unsigned i = 0; i < n_pub; i++) cz_rng_fr(&c->pub[i]);
}

static void fixture_init(fixture *f, unsigned n_pub, unsigned steps)
{
    memset(f, 0, sizeof *f);
    make_ctx(&f->ctx, n_pub, steps, cz_rng_u64());
    assert_int_equal(cz_pool_create(&f->pool, 2, "g16test"), CZ_OK);
    assert_int_equal(cz_pce_record(&f->pce, random_circuit, &f->ctx, NULL), CZ_OK);
    cz_errbuf e = {{0}};
    cz_status st = cz_groth16_setup(&f->params, f->pce, f->pool, NULL, &e);
    if (st != CZ_OK) fail_msg("setup: %s", e.msg);
}

static void fixture_free(fixture *f)
{
    cz_groth16_params_free(f->params);
    cz_pce_free(f->pce);
    cz_pool_destroy(f->pool);
}

/* Synthesize and prove; returns the status of prove. */
static cz_status prove_ctx(const fixture *f, const rc_ctx *ctx, const cz_fr *rs, uint8_t proof[192],
                           cz_pool *bg, bool split_free_only)
{
    cz_witness w;
    size_t m = cz_groth16_params_domain(f->params);
    cz_groth16_input in = {malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), m, &w};
    cz_status st = cz_synthesize(f->pce, random_circuit, ctx, f->pool, &w, in.a, in.b, in.c, m);
    assert_int_equal(st, CZ_OK);
    cz_errbuf e = {{0}};
    cz_groth16_pending *p;
    st = cz_groth16_prove_start(&p, f->params, f->pce, &in, f->pool, bg, &e);
    assert_null(in.a);
    assert_null(in.b);
    assert_null(in.c);
    if (st == CZ_OK) {
        if (split_free_only) {
            cz_groth16_pending_free(p);
        } else {
            cz_groth16_timings t;
            st = cz_groth16_prove_finish(p, rs, proof, &t, &e);
        }
    }
    cz_witness_free(&w);
    return st;
}

static cz_status verify_bytes(const fixture *f, const uint8_t proof[192], const cz_fr *pub)
{
    cz_groth16_pvk *pvk;
    assert_int_equal(cz_groth16_pvk_create(&pvk, &f->params->vk), CZ_OK);
    cz_groth16_proof pr;
    cz_errbuf e;
    cz_status st = cz_groth16_proof_decode(&pr, proof, &e);
    if (st == CZ_OK) st = cz_groth16_verify(pvk, &pr, pub, f->ctx.n_pub, &e);
    cz_groth16_pvk_free(pvk);
    return st;
}

static void prove_and_verify(void **state)
{
    (void)state;
    const unsigned shapes[][2] = {{1, 5}, {3, 40}, {5, 120}};
    for (size_t k = 0; k < 3; k++) {
        fixture f;
        fixture_init(&f, shapes[k][0], shapes[k][1]);
        uint8_t proof[192];
        assert_int_equal(prove_ctx(&f, &f.ctx, NULL, proof, f.pool, false), CZ_OK);
        assert_int_equal(verify_bytes(&f, proof, f.ctx.pub), CZ_OK);
        /* every public input is bound */
        for (unsigned i = 0; i < f.ctx.n_pub; i++) {
            cz_fr pub[8];
            memcpy(pub, f.ctx.pub, sizeof pub);
            cz_fr_add(&pub[i], &pub[i], &CZ_FR_ONE);
            assert_int_equal(verify_bytes(&f, proof, pub), CZ_ERR_UNSATISFIED);
        }
        /* a flipped bit anywhere in the proof is rejected (decode or pairing) */
        for (int bit = 0; bit < 192 * 8; bit += 37) {
            proof[bit / 8] ^= (uint8_t)(1 << (bit % 8));
            assert_int_not_equal(verify_bytes(&f, proof, f.ctx.pub), CZ_OK);
            proof[bit / 8] ^= (uint8_t)(1 << (bit % 8));
        }
        fixture_free(&f);
    }
}

static void fixed_rs_is_deterministic_and_random_rs_is_not(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 2, 30);
    cz_fr rs[2];
    cz_rng_fr(&rs[0]);
    cz_rng_fr(&rs[1]);
    uint8_t p1[192], p2[192], p3[192];
    assert_int_equal(prove_ctx(&f, &f.ctx, rs, p1, NULL, false), CZ_OK);
    assert_int_equal(prove_ctx(&f, &f.ctx, rs, p2, f.pool, false), CZ_OK);
    assert_memory_equal(p1, p2, 192);
    assert_int_equal(prove_ctx(&f, &f.ctx, NULL, p3, f.pool, false), CZ_OK);
    assert_memory_not_equal(p1, p3, 192);
    assert_int_equal(verify_bytes(&f, p1, f.ctx.pub), CZ_OK);
    assert_int_equal(verify_bytes(&f, p3, f.ctx.pub), CZ_OK);
    /* another witness of the same circuit (other public inputs) proves too */
    rc_ctx other = f.ctx;
    cz_rng_fr(&other.pub[0]);
    assert_int_equal(prove_ctx(&f, &other, NULL, p3, f.pool, false), CZ_OK);
    assert_int_equal(verify_bytes(&f, p3, other.pub), CZ_OK);
    assert_int_equal(verify_bytes(&f, p3, f.ctx.pub), CZ_ERR_UNSATISFIED);
    /* start then free without finishing: no leak, no hang */
    assert_int_equal(prove_ctx(&f, &f.ctx, NULL, p3, f.pool, true), CZ_OK);
    fixture_free(&f);
}

static void wrong_vk_fails(void **state)
{
    (void)state;
    fixture f, g;
    fixture_init(&f, 2, 20);
    /* same circuit, second independent setup */
    memset(&g, 0, sizeof g);
    g.ctx = f.ctx;
    g.pool = f.pool;
    g.pce = f.pce;
    cz_errbuf e;
    assert_int_equal(cz_groth16_setup(&g.params, g.pce, g.pool, NULL, &e), CZ_OK);
    uint8_t proof[192];
    assert_int_equal(prove_ctx(&f, &f.ctx, NULL, proof, f.pool, false), CZ_OK);
    assert_int_equal(verify_bytes(&f, proof, f.ctx.pub), CZ_OK);
    assert_int_equal(verify_bytes(&g, proof, f.ctx.pub), CZ_ERR_UNSATISFIED);
    cz_groth16_params_free(g.params);
    fixture_free(&f);
}

static void unsatisfied_witness_refused(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 1, 25);
    rc_ctx bad = f.ctx;
    bad.break_at = 7;
    /* the checker names the failing constraint */
    cz_check_report rep;
    assert_int_equal(cz_cs_check(random_circuit, &bad, &rep), CZ_ERR_UNSATISFIED);
    assert_int_equal(rep.first_failure, 7);
    uint8_t proof[192];
    assert_int_equal(prove_ctx(&f, &bad, NULL, proof, f.pool, false), CZ_ERR_UNSATISFIED);
    fixture_free(&f);
}

static void setup_refuses_unused_aux(void **state)
{
    (void)state;
    rc_ctx c;
    make_ctx(&c, 1, 10, 42);
    c.unused_aux = 1;
    cz_pce *pce;
    assert_int_equal(cz_pce_record(&pce, random_circuit, &c, NULL), CZ_OK);
    cz_groth16_params *p = NULL;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_groth16_setup(&p, pce, NULL, NULL, &e), CZ_ERR_INVALID_ARG);
    assert_null(p);
    assert_non_null(strstr(e.msg, "aux variable 1"));
    cz_pce_free(pce);
}

/* One domain limit (CZ_NTT_MAX_LOG_N): setup refuses what the prover could
 * not prove, with the numbers in the message, before allocating anything
 * (so a bare shape with only the constraint count is enough here). */
static void setup_refuses_domain_above_prover_limit(void **state)
{
    (void)state;
    cz_pce pce;
    memset(&pce, 0, sizeof pce);
    pce.n_constraints = ((uint64_t)1 << CZ_NTT_MAX_LOG_N) + 1;
    cz_groth16_params *p = (cz_groth16_params *)&pce; /* must be reset to NULL */
    cz_errbuf e = {{0}};
    assert_int_equal(cz_groth16_setup(&p, &pce, NULL, NULL, &e), CZ_ERR_INVALID_ARG);
    assert_null(p);
    char want[64];
    snprintf(want, sizeof want, "prover's limit of 2^%d", CZ_NTT_MAX_LOG_N);
    assert_non_null(strstr(e.msg, want));
}

static void batch_verify(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 2, 20);
    enum { N = 4 };
    cz_groth16_proof pr[N];
    rc_ctx ctx[N];
    const cz_fr *inputs[N];
    for (int k = 0; k < N; k++) {
        ctx[k] = f.ctx;
        cz_rng_fr(&ctx[k].pub[0]);
        uint8_t b[192];
        assert_int_equal(prove_ctx(&f, &ctx[k], NULL, b, f.pool, false), CZ_OK);
        cz_errbuf e;
        assert_int_equal(cz_groth16_proof_decode(&pr[k], b, &e), CZ_OK);
        inputs[k] = ctx[k].pub;
    }
    cz_groth16_pvk *pvk;
    assert_int_equal(cz_groth16_pvk_create(&pvk, &f.params->vk), CZ_OK);
    cz_errbuf e;
    assert_int_equal(cz_groth16_verify_batch(pvk, pr, inputs, 2, N, &e), CZ_OK);
    /* swap two proofs' inputs: the batch fails */
    inputs[1] = ctx[2].pub;
    assert_int_equal(cz_groth16_verify_batch(pvk, pr, inputs, 2, N, &e), CZ_ERR_UNSATISFIED);
    inputs[1] = ctx[1].pub;
    /* a proof with A and C swapped fails */
    cz_g1_affine t = pr[3].a;
    pr[3].a = pr[3].c;
    pr[3].c = t;
    assert_int_equal(cz_groth16_verify_batch(pvk, pr, inputs, 2, N, &e), CZ_ERR_UNSATISFIED);
    cz_groth16_pvk_free(pvk);
    fixture_free(&f);
}

static void params_file_roundtrip_and_refusals(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, 2, 30);
    char path[] = "/tmp/cz_params_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_groth16_params_write(f.params, path, &e), CZ_OK);
    cz_groth16_params *q;
    assert_int_equal(cz_groth16_params_read(&q, path, f.pce, f.pool, &e), CZ_OK);
    assert_int_equal(q->n_h, f.params->n_h);
    assert_memory_equal(q->h, f.params->h, q->n_h * sizeof *q->h);
    assert_memory_equal(q->b_g2, f.params->b_g2, q->n_b * sizeof *q->b_g2);
    assert_memory_equal(q->vk.ic, f.params->vk.ic, q->vk.n_ic * sizeof *q->vk.ic);
    /* a proof made with the loaded parameters verifies */
    cz_groth16_params *saved = f.params;
    f.params = q;
    uint8_t proof[192];
    assert_int_equal(prove_ctx(&f, &f.ctx, NULL, proof, f.pool, false), CZ_OK);
    f.params = saved;
    assert_int_equal(verify_bytes(&f, proof, f.ctx.pub), CZ_OK);
    cz_groth16_params_free(q);

    size_t len;
    uint8_t *buf = cz_read_file(path, &len);
    /* truncations */
    const size_t cuts[] = {0, 50, 96 * 2 + 10, len / 2, len - 1};
    for (size_t i = 0; i < 5; i++) {
        FILE *o = fopen(path, "wb");
        fwrite(buf, 1, cuts[i], o);
        fclose(o);
        assert_int_not_equal(cz_groth16_params_read(&q, path, NULL, f.pool, &e), CZ_OK);
    }
    /* a point of h moved off the curve (last byte of its y) */
    size_t h0 = 96 * 3 + 192 * 3 + 4 + 96 * f.params->vk.n_ic + 4;
    buf[h0 + 95] ^= 1;
    FILE *o = fopen(path, "wb");
    fwrite(buf, 1, len, o);
    fclose(o);
    assert_int_equal(cz_groth16_params_read(&q, path, NULL, f.pool, &e), CZ_ERR_NOT_ON_CURVE);
    assert_non_null(strstr(e.msg, "h point 0"));
    buf[h0 + 95] ^= 1;
    /* trailing garbage */
    o = fopen(path, "wb");
    fwrite(buf, 1, len, o);
    fputc(0, o);
    fclose(o);
    assert_int_equal(cz_groth16_params_read(&q, path, NULL, f.pool, &e), CZ_ERR_FORMAT);
    /* parameters of another circuit are refused for this one */
    rc_ctx c2;
    make_ctx(&c2, 2, 200, 7);
    cz_pce *other;
    assert_int_equal(cz_pce_record(&other, random_circuit, &c2, NULL), CZ_OK);
    assert_int_equal(cz_groth16_params_write(f.params, path, &e), CZ_OK);
    assert_int_equal(cz_groth16_params_read(&q, path, other, f.pool, &e), CZ_ERR_MISMATCH);
    cz_pce_free(other);
    free(buf);
    unlink(path);
    fixture_free(&f);
}

/* The prover sums H and L in one concatenated MSM (prover.c). The same
 * proof, byte for byte, must come out of H and L computed by separate
 * MSMs: here every G1 part is recomputed the straightforward way (quotient,
 * then one MSM per query, H and L apart) and handed to prove_finish
 * through the pending-parts interface with the same r, s. */
static void merged_hl_equals_separate_msms(void **state)
{
    (void)state;
    const unsigned shapes[][2] = {{1, 5}, {3, 120}};
    for (size_t k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, shapes[k][0], shapes[k][1]);
        cz_fr rs[2];
        cz_rng_fr(&rs[0]);
        cz_rng_fr(&rs[1]);
        uint8_t merged[192], separate[192];
        assert_int_equal(prove_ctx(&f, &f.ctx, rs, merged, NULL, false), CZ_OK);

        const cz_groth16_params *P = f.params;
        const cz_pce *pce = f.pce;
        size_t m = cz_groth16_params_domain(P);
        unsigned logm = 0;
        while (((size_t)1 << logm) < m) logm++;
        cz_witness w;
        cz_fr *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b), *c = malloc(m * sizeof *c);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        assert_int_equal(cz_synthesize(pce, random_circuit, &f.ctx, f.pool, &w, a, b, c, m), CZ_OK);
        cz_ntt_domain *dom;
        assert_int_equal(cz_ntt_domain_create(&dom, logm, NULL), CZ_OK);
        cz_quotient_h(f.pool, dom, a, b, c);
        cz_ntt_domain_free(dom);
        size_t nz = w.n_inputs + w.n_aux;
        cz_scalar *hs = malloc(m * sizeof *hs), *z = malloc(nz * sizeof *z);
        assert_non_null(hs);
        assert_non_null(z);
        cz_msm_scalars_from_fr(hs, a, m - 1, NULL);
        cz_msm_scalars_from_fr(z, w.inputs, w.n_inputs, NULL);
        cz_msm_scalars_from_fr(z + w.n_inputs, w.aux, w.n_aux, NULL);
        const cz_scalar *zaux = z + w.n_inputs;
        cz_g1_jac h, l, x, y, A, B1;
        assert_int_equal(cz_msm_g1(&h, P->h, hs, m - 1, f.pool, NULL), CZ_OK);
        assert_int_equal(cz_msm_g1(&l, P->l, zaux, w.n_aux, f.pool, NULL), CZ_OK);
        assert_int_equal(cz_msm_g1(&x, P->a, z, w.n_inputs, f.pool, NULL), CZ_OK);
        assert_int_equal(cz_msm_g1_density(&y, P->a + w.n_inputs, P->n_a - w.n_inputs, zaux, w.n_aux,
                                           pce->dens_a_aux, f.pool, NULL),
                         CZ_OK);
        cz_g1_jac_add(&A, &x, &y);
        size_t nbi = pce->dens_b_input_count;
        assert_int_equal(cz_msm_g1_density(&x, P->b_g1, nbi, z, w.n_inputs, pce->dens_b_input, f.pool, NULL),
                         CZ_OK);
        assert_int_equal(cz_msm_g1_density(&y, P->b_g1 + nbi, P->n_b - nbi, zaux, w.n_aux, pce->dens_b_aux,
                                           f.pool, NULL),
                         CZ_OK);
        cz_g1_jac_add(&B1, &x, &y);
        cz_errbuf e = {{0}};
        cz_groth16_pending *p;
        assert_int_equal(cz_groth16_pending_begin(&p, P, pce, &w, f.pool, NULL, &e), CZ_OK);
        cz_groth16_pending_set_g1(p, &h, &l, &A, &B1, NULL);
        assert_int_equal(cz_groth16_prove_finish(p, rs, separate, NULL, &e), CZ_OK);
        assert_memory_equal(merged, separate, 192);
        assert_int_equal(verify_bytes(&f, merged, f.ctx.pub), CZ_OK);
        free(a);
        free(b);
        free(c);
        free(hs);
        free(z);
        cz_witness_free(&w);
        fixture_free(&f);
    }
}

/* ---- precomputed MSM tables (cz_groth16_params_build_tables) ---- */

/* A chain large enough for every query to get tables (>= 4096 bases
 * each): x_{k+1} = x_k · (2·x_k + u), u the public input; every x_k is in
 * A and in B (with another coefficient, so that the A and B queries are
 * different points and a table of one used for the other is caught), and
 * L and H have 4,501 and 8,191 points. */
#define CHAIN_STEPS 4500
typedef struct {
    cz_fr u, x0;
} chain_ctx;

static cz_status chain_circuit(cz_cs *cs, const void *vctx)
{
    const chain_ctx *c = vctx;
    cz_var u, x;
    cz_cs_alloc_input(cs, &u, &c->u);
    cz_cs_alloc_aux(cs, &x, &c->x0);
    cz_fr xv = c->x0;
    for (unsigned k = 0; k < CHAIN_STEPS; k++) {
        cz_fr sum, next;
        cz_fr_dbl(&sum, &xv);
        cz_fr_add(&sum, &sum, &c->u);
        cz_fr_mul(&next, &xv, &sum);
        cz_var y;
        cz_cs_alloc_aux(cs, &y, &next);
        cz_lc a, b, cc;
        cz_lc_init(&a, cs);
        cz_lc_init(&b, cs);
        cz_lc_init(&cc, cs);
        cz_lc_add_var(&a, x);
        cz_fr two;
        cz_fr_from_u64(&two, 2);
        cz_lc_add(&b, x, &two);
        cz_lc_add_var(&b, u);
        cz_lc_add_var(&cc, y);
        cz_cs_enforce(cs, &a, &b, &cc, "step");
        cz_lc_free(&a);
        cz_lc_free(&b);
        cz_lc_free(&cc);
        x = y;
        xv = next;
    }
    return CZ_OK;
}

static void chain_prove(const cz_groth16_params *P, const cz_pce *pce, const chain_ctx *ctx, cz_pool *pool,
                        const cz_fr *rs, uint8_t proof[192])
{
    size_t m = cz_groth16_params_domain(P);
    cz_witness w;
    cz_groth16_input in = {malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), m, &w};
    assert_int_equal(cz_synthesize(pce, chain_circuit, ctx, pool, &w, in.a, in.b, in.c, m), CZ_OK);
    cz_errbuf e = {{0}};
    cz_status st = cz_groth16_prove(P, pce, &in, pool, rs, proof, NULL, &e);
    if (st != CZ_OK) fail_msg("prove: %s", e.msg);
    cz_witness_free(&w);
}

/* With tables the prover computes the same group elements: the proof
 * for fixed r, s is byte-identical, with every query tabled, with H
 * alone, and with none; a plan is what a build makes. */
static void tables_give_the_same_proof(void **state)
{
    (void)state;
    cz_pool *pool;
    assert_int_equal(cz_pool_create(&pool, 2, "g16tab"), CZ_OK);
    chain_ctx ctx;
    cz_rng_fr(&ctx.u);
    cz_fr_from_u64(&ctx.x0, 7);
    cz_pce *pce;
    assert_int_equal(cz_pce_record(&pce, chain_circuit, &ctx, NULL), CZ_OK);
    cz_groth16_params *P;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_groth16_setup(&P, pce, pool, NULL, &e), CZ_OK);
    cz_groth16_pvk *pvk;
    assert_int_equal(cz_groth16_pvk_create(&pvk, &P->vk), CZ_OK);
    cz_fr rs[2];
    cz_rng_fr(&rs[0]);
    cz_rng_fr(&rs[1]);
    uint8_t plain[192], tabled[192];
    chain_prove(P, pce, &ctx, pool, rs, plain);

    /* every query planned with room to spare */
    cz_groth16_tables_plan plan;
    cz_groth16_tables_plan_for(&plan, pce, 1ull << 32, pool);
    assert_int_equal(plan.n[CZ_GROTH16_Q_H], 8191);
    assert_int_equal(plan.n[CZ_GROTH16_Q_L], CHAIN_STEPS + 1);
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        assert_true(plan.t[q] >= 2);
        assert_true(plan.t[q] * plan.bits[q] >= 256);
    }
    assert_int_equal(cz_groth16_params_build_tables(P, pce, 1ull << 32, pool, &e), CZ_OK);
    assert_int_equal(cz_groth16_params_tables_bytes(P), plan.bytes);
    assert_non_null(P->tables->g1[CZ_GROTH16_Q_H]);
    assert_non_null(P->tables->b_g2);
    chain_prove(P, pce, &ctx, pool, rs, tabled);
    assert_memory_equal(plain, tabled, 192);
    cz_groth16_proof pr;
    assert_int_equal(cz_groth16_proof_decode(&pr, tabled, &e), CZ_OK);
    assert_int_equal(cz_groth16_verify(pvk, &pr, &ctx.u, 1, &e), CZ_OK);

    /* a limit that H's tables fill: H only (the first in cost order) */
    uint64_t h_bytes = cz_msm_g1_tables_bytes(plan.n[CZ_GROTH16_Q_H], plan.t[CZ_GROTH16_Q_H]);
    cz_groth16_tables_plan_for(&plan, pce, h_bytes, pool);
    assert_true(plan.t[CZ_GROTH16_Q_H] >= 2);
    for (int q = CZ_GROTH16_Q_L; q < CZ_GROTH16_NQ; q++) assert_int_equal(plan.t[q], 0);
    assert_true(plan.bytes <= h_bytes);
    assert_int_equal(cz_groth16_params_build_tables(P, pce, h_bytes, pool, &e), CZ_OK);
    assert_null(P->tables->g1[CZ_GROTH16_Q_A]);
    assert_null(P->tables->b_g2);
    chain_prove(P, pce, &ctx, pool, rs, tabled);
    assert_memory_equal(plain, tabled, 192);

    /* no room: no tables, the plain MSMs */
    assert_int_equal(cz_groth16_params_build_tables(P, pce, 1000, pool, &e), CZ_OK);
    assert_null(P->tables);
    assert_int_equal(cz_groth16_params_tables_bytes(P), 0);
    chain_prove(P, pce, &ctx, pool, rs, tabled);
    assert_memory_equal(plain, tabled, 192);

    /* parameters of another circuit are refused */
    fixture f;
    fixture_init(&f, 1, 10);
    assert_int_equal(cz_groth16_params_build_tables(P, f.pce, 1ull << 32, pool, &e), CZ_ERR_MISMATCH);
    fixture_free(&f);

    assert_int_equal(cz_groth16_params_build_tables(P, pce, 1ull << 32, pool, &e), CZ_OK);
    cz_groth16_pvk_free(pvk);
    cz_groth16_params_free(P); /* frees the tables too (ASan: no leak) */
    cz_pce_free(pce);
    cz_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prove_and_verify),
        cmocka_unit_test(fixed_rs_is_deterministic_and_random_rs_is_not),
        cmocka_unit_test(wrong_vk_fails),
        cmocka_unit_test(unsatisfied_witness_refused),
        cmocka_unit_test(setup_refuses_unused_aux),
        cmocka_unit_test(setup_refuses_domain_above_prover_limit),
        cmocka_unit_test(batch_verify),
        cmocka_unit_test(params_file_roundtrip_and_refusals),
        cmocka_unit_test(merged_hl_equals_separate_msms),
        cmocka_unit_test(tables_give_the_same_proof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
