/*
 * The GPU prover's driver code (src/cuda/context.c, src/cuda/prove_cuda.c,
 * compiled unchanged) run against the host double of the CUDA runtime and
 * kernels (double/cuda_double.h), on a machine without a GPU:
 * - the proof equals, byte for byte, the CPU prover's for the same r, s,
 *   under every eager/lazy combination of the two streams (missing waits
 *   and early reuse of staging or host buffers would change it), with
 *   staging buffers small enough that every upload takes many rounds;
 * - device memory is the resident set after every proof, and zero after
 *   the context is freed;
 * - every device allocation of a proof, made to fail in turn, gives
 *   CZ_ERR_NOMEM with nothing leaked, and the next proof is right;
 * - a failed launch fails the call only; a sticky one breaks the context,
 *   whose later calls say so;
 * - the budget checks, the row check, and resident parameters recognised
 *   by (pointer, generation);
 * - a proof's uploads run before its device region (the caller's lock),
 *   and two workers prove at once on one context; a proof admitted while
 *   the parameters' upload is in flight does not count them twice;
 * - the single-kernel entry points against the CPU library.
 */
#include "testutil.h"
#include "cuda_double.h"
#include "cuda/ctx_internal.h"
#include "cuzk/circuits.h"
#include "cuzk/cuda.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "groth16/groth16_internal.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEVICE_BYTES ((size_t)1 << 30)
#define STAGING 4096 /* bytes: a, b, c of 2^8 elements take two rounds each */

static cz_pool *pool, *bg;

typedef struct {
    cz_mulchain mc;
    cz_pce *pce;
    cz_groth16_params *params;
} circuit;

static circuit C;

static int setup(void **state)
{
    (void)state;
    cz_test_seed();
    if (cz_pool_create(&pool, 2, "drv") != CZ_OK) return -1;
    if (cz_pool_create(&bg, 1, "drvbg") != CZ_OK) return -1;
    C.mc = (cz_mulchain){ 200, 3, CZ_FR_ZERO };
    cz_rng_fr(&C.mc.x0);
    cz_errbuf e;
    if (cz_pce_record(&C.pce, cz_mulchain_synth, &C.mc, NULL) != CZ_OK) return -1;
    if (cz_groth16_setup(&C.params, C.pce, pool, NULL, &e) != CZ_OK) return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cz_groth16_params_free(C.params);
    cz_pce_free(C.pce);
    cz_pool_destroy(pool);
    cz_pool_destroy(bg);
    return 0;
}

static cz_cuda_ctx *open_ctx(void)
{
    cz_cuda_opts o = { 0, STAGING, 1 << 20 };
    cz_cuda_ctx *ctx;
    cz_errbuf e;
    cz_status st = cz_cuda_ctx_create(&ctx, &o, &e);
    if (st != CZ_OK) fail_msg("ctx: %s", e.msg);
    return ctx;
}

/* A synthesized input and the r, s every proof here draws. */
typedef struct {
    cz_witness w;
    cz_groth16_input in;
} input;

static void make_input(input *x, cz_fr rs[2])
{
    size_t m = cz_groth16_params_domain(C.params);
    x->in = (cz_groth16_input){ malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), m,
                                &x->w };
    assert_int_equal(cz_synthesize(C.pce, cz_mulchain_synth, &C.mc, pool, &x->w, x->in.a, x->in.b, x->in.c, m),
                     CZ_OK);
    cz_rng_seed(cz_test_seed());
    cz_rng_fr(&rs[0]);
    cz_rng_fr(&rs[1]);
}

/* One proof: on the CPU (ctx NULL) or through the driver; r, s from the
 * test seed, so both provers draw the same. tamper breaks one row. */
static cz_status prove(cz_cuda_ctx *ctx, uint64_t gen, bool tamper, uint8_t proof[192], cz_errbuf *e)
{
    input x;
    cz_fr rs[2];
    make_input(&x, rs);
    if (tamper) cz_fr_add(&x.in.c[2], &x.in.c[2], &CZ_FR_ONE);
    cz_groth16_pending *p;
    cz_status st = ctx ? cz_cuda_prove_start_ex(&p, ctx, C.params, gen, C.pce, &x.in, pool, bg, NULL, e)
                       : cz_groth16_prove_start(&p, C.params, C.pce, &x.in, pool, bg, e);
    /* a, b, c are freed by prove_start on every path */
    assert_null(x.in.a);
    if (st == CZ_OK) {
        cz_groth16_timings t;
        st = cz_groth16_prove_finish(p, rs, proof, &t, e);
    }
    cz_witness_free(&x.w);
    return st;
}

static uint8_t cpu_proof[192];

static size_t resident_bytes(void) { return cz_cuda_params_device_bytes(C.params); }

static void test_driver_proof(void **state)
{
    (void)state;
    cz_errbuf e;
    assert_int_equal(prove(NULL, 0, false, cpu_proof, &e), CZ_OK);
    /* bit 0: the compute stream lazy, bit 1: the copy stream (created in that order) */
    for (unsigned mask = 0; mask < 4; mask++) {
        czd_reset(DEVICE_BYTES);
        czd_set_lazy_mask(mask);
        cz_cuda_ctx *ctx = open_ctx();
        uint64_t gen = cz_cuda_params_generation();
        for (int k = 0; k < 2; k++) {
            uint8_t pr[192];
            cz_status st = prove(ctx, gen, false, pr, &e);
            if (st != CZ_OK) fail_msg("lazy mask %u, proof %d: %s", mask, k, e.msg);
            assert_memory_equal(pr, cpu_proof, 192);
            assert_int_equal(czd_device_bytes(), resident_bytes());
        }
        assert_true(cz_cuda_params_resident(ctx, C.params, gen));
        cz_cuda_ctx_free(ctx);
        assert_int_equal(czd_outstanding(), 0);
    }
    /* and the proof verifies */
    cz_groth16_pvk *pvk;
    cz_groth16_proof pr;
    cz_fr pub[5];
    cz_mulchain_public_inputs(&C.mc, pub);
    assert_int_equal(cz_groth16_pvk_create(&pvk, &C.params->vk), CZ_OK);
    assert_int_equal(cz_groth16_proof_decode(&pr, cpu_proof, &e), CZ_OK);
    assert_int_equal(cz_groth16_verify(pvk, &pr, pub, 5, &e), CZ_OK);
    cz_groth16_pvk_free(pvk);
}

/* Every device allocation (the parameter upload's and the proof's), made
 * to fail in turn. */
static void test_driver_each_alloc_fails(void **state)
{
    (void)state;
    cz_errbuf e;
    czd_reset(DEVICE_BYTES);
    czd_set_lazy_mask(2);
    cz_cuda_ctx *ctx = open_ctx();
    uint64_t gen = cz_cuda_params_generation(), before = czd_mallocs();
    uint8_t pr[192];
    assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_OK);
    unsigned n = (unsigned)(czd_mallocs() - before);
    /* 4 queries, 9 NTT tables, 8 proof buffers, 4 MSM scratch blocks */
    assert_true(n >= 4 + 9 + 8 + 4);
    print_message("%u device allocations in an upload and a proof\n", n);
    cz_cuda_params_release(ctx);
    assert_int_equal(czd_device_bytes(), 0);
    for (unsigned k = 1; k <= n; k++) {
        czd_fail_malloc_at(k);
        cz_status st = prove(ctx, gen, false, pr, &e);
        if (st != CZ_ERR_NOMEM) fail_msg("allocation %u of %u: status %d (%s)", k, n, st, e.msg);
        assert_non_null(strstr(e.msg, "cudaErrorMemoryAllocation"));
        /* nothing of the proof stays; the parameters stay only if their upload completed */
        size_t b = czd_device_bytes();
        assert_true(b == 0 || b == resident_bytes());
        cz_cuda_params_release(ctx);
        assert_int_equal(czd_device_bytes(), 0);
    }
    czd_fail_malloc_at(0);
    assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_OK);
    assert_memory_equal(pr, cpu_proof, 192);
    cz_cuda_ctx_free(ctx);
    assert_int_equal(czd_outstanding(), 0);
}

/* A launch or copy that fails once fails that call only (the context
 * stays usable); a sticky failure breaks the context. */
static void test_driver_call_faults(void **state)
{
    (void)state;
    cz_errbuf e;
    czd_reset(DEVICE_BYTES);
    cz_cuda_ctx *ctx = open_ctx();
    uint64_t gen = cz_cuda_params_generation();
    uint8_t pr[192];
    assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_OK);
    uint64_t c0 = czd_calls();
    assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_OK);
    unsigned n = (unsigned)(czd_calls() - c0);
    for (unsigned k = 1; k <= n; k += 3) {
        czd_fail_call_at(k, false);
        cz_status st = prove(ctx, gen, false, pr, &e);
        if (st != CZ_ERR_INTERNAL) fail_msg("call %u of %u: status %d (%s)", k, n, st, e.msg);
        assert_non_null(strstr(e.msg, "cudaErrorLaunchFailure"));
        size_t b = czd_device_bytes();
        assert_true(b == 0 || b == resident_bytes());
        assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_OK);
        assert_memory_equal(pr, cpu_proof, 192);
    }
    czd_fail_call_at(n / 2, true);
    assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_ERR_INTERNAL);
    cz_status st = prove(ctx, gen, false, pr, &e);
    assert_int_equal(st, CZ_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "unusable after an earlier error"));
    /* a broken device cannot be asked to free anything: what it holds stays
     * (the resident set at most) and freeing the context must not fail */
    size_t left = czd_device_bytes();
    assert_true(left == 0 || left == resident_bytes());
    cz_cuda_ctx_free(ctx);
    czd_reset(DEVICE_BYTES); /* the double drops what the broken context held */
}

static void test_driver_budget_and_rows(void **state)
{
    (void)state;
    cz_errbuf e;
    uint8_t pr[192];
    /* room for the parameters and the reserve, not for a proof */
    czd_reset(resident_bytes() + (1 << 20) + 4096);
    cz_cuda_ctx *ctx = open_ctx();
    uint64_t gen = cz_cuda_params_generation();
    assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_ERR_BUDGET);
    assert_non_null(strstr(e.msg, "beyond the resident parameters"));
    cz_cuda_ctx_free(ctx);
    /* not even for the parameters */
    czd_reset(resident_bytes() / 2);
    ctx = open_ctx();
    assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_ERR_BUDGET);
    assert_non_null(strstr(e.msg, "parameters need"));
    assert_int_equal(czd_device_bytes(), 0);
    cz_cuda_ctx_free(ctx);
    /* an unsatisfied row is found on the "device", under both copy policies */
    for (unsigned mask = 0; mask < 4; mask += 2) {
        czd_reset(DEVICE_BYTES);
        czd_set_lazy_mask(mask);
        ctx = open_ctx();
        assert_int_equal(prove(ctx, gen, true, pr, &e), CZ_ERR_UNSATISFIED);
        assert_non_null(strstr(e.msg, "constraint row 2"));
        assert_int_equal(czd_device_bytes(), resident_bytes());
        assert_int_equal(prove(ctx, gen, false, pr, &e), CZ_OK);
        assert_memory_equal(pr, cpu_proof, 192);
        cz_cuda_ctx_free(ctx);
    }
}

/* (pointer, generation) identifies the resident set: another generation
 * at the same address is uploaded anew; release_set of a set that is not
 * resident does nothing. */
static void test_driver_generations(void **state)
{
    (void)state;
    cz_errbuf e;
    uint8_t pr[192];
    czd_reset(DEVICE_BYTES);
    cz_cuda_ctx *ctx = open_ctx();
    uint64_t g1 = cz_cuda_params_generation(), g2 = cz_cuda_params_generation();
    assert_int_equal(cz_cuda_params_upload_gen(ctx, C.params, g1, &e), CZ_OK);
    uint64_t up = czd_h2d_bytes();
    size_t pts = (C.params->n_h + C.params->n_l + C.params->n_a + C.params->n_b) * sizeof(cz_g1_affine);
    assert_int_equal(up, pts);
    assert_int_equal(cz_cuda_params_upload_gen(ctx, C.params, g1, &e), CZ_OK);
    assert_int_equal(czd_h2d_bytes(), up); /* already resident: nothing copied */
    assert_true(cz_cuda_params_resident(ctx, C.params, g1));
    assert_false(cz_cuda_params_resident(ctx, C.params, g2));
    assert_int_equal(prove(ctx, g2, false, pr, &e), CZ_OK); /* re-uploads */
    assert_memory_equal(pr, cpu_proof, 192);
    assert_true(czd_h2d_bytes() >= 2 * up);
    assert_true(cz_cuda_params_resident(ctx, C.params, g2));
    cz_cuda_params_release_set(ctx, C.params, g1);
    assert_true(cz_cuda_params_resident(ctx, C.params, g2));
    assert_int_equal(czd_device_bytes(), resident_bytes());
    cz_cuda_params_release_set(ctx, C.params, g2);
    assert_false(cz_cuda_params_resident(ctx, C.params, g2));
    assert_int_equal(czd_device_bytes(), 0);
    cz_cuda_ctx_free(ctx);
}

/* The engine's device lock, as region hooks: counts its use and what had
 * been queued for upload when it was taken. */
typedef struct {
    pthread_mutex_t mu;
    unsigned locks, unlocks;
    uint64_t queued_at_lock;
} region;

static void hook_lock(void *arg)
{
    region *r = arg;
    pthread_mutex_lock(&r->mu);
    r->locks++;
    r->queued_at_lock = czd_h2d_queued_bytes();
}

static void hook_unlock(void *arg)
{
    region *r = arg;
    r->unlocks++;
    pthread_mutex_unlock(&r->mu);
}

/* This proof's transfers are queued before the device region is entered
 * (so they run while another proof's kernels hold the device). */
static void test_driver_uploads_before_region(void **state)
{
    (void)state;
    cz_errbuf e;
    czd_reset(DEVICE_BYTES);
    czd_set_lazy_mask(2);
    cz_cuda_ctx *ctx = open_ctx();
    uint64_t gen = cz_cuda_params_generation();
    assert_int_equal(cz_cuda_params_upload_gen(ctx, C.params, gen, &e), CZ_OK);
    region r = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0 };
    cz_cuda_region_hooks hooks = { hook_lock, hook_unlock, &r };
    input x;
    cz_fr rs[2];
    make_input(&x, rs);
    size_t m = x.in.m, nz = x.w.n_inputs + x.w.n_aux;
    uint64_t before = czd_h2d_queued_bytes();
    cz_groth16_pending *p;
    assert_int_equal(cz_cuda_prove_start_ex(&p, ctx, C.params, gen, C.pce, &x.in, pool, bg, &hooks, &e), CZ_OK);
    assert_int_equal(r.locks, 1);
    assert_int_equal(r.unlocks, 1);
    assert_true(r.queued_at_lock - before >= (3 * m + nz) * sizeof(cz_fr));
    uint8_t pr[192];
    cz_groth16_timings t;
    assert_int_equal(cz_groth16_prove_finish(p, rs, pr, &t, &e), CZ_OK);
    assert_memory_equal(pr, cpu_proof, 192);
    cz_witness_free(&x.w);
    /* a proof that fails in its upload phase never takes the region */
    make_input(&x, rs);
    czd_fail_malloc_at(1);
    assert_int_equal(cz_cuda_prove_start_ex(&p, ctx, C.params, gen, C.pce, &x.in, pool, bg, &hooks, &e),
                     CZ_ERR_NOMEM);
    assert_int_equal(r.locks, 1);
    assert_int_equal(r.unlocks, 1);
    assert_null(x.in.a);
    cz_witness_free(&x.w);
    cz_cuda_ctx_free(ctx);
}

/* Two workers on one context, as the engine runs them: one's uploads
 * while the other holds the device region. */
enum { WORKERS = 2, PER_WORKER = 3 };
typedef struct {
    cz_cuda_ctx *ctx;
    uint64_t gen;
    region *r;
    input x[PER_WORKER];
    cz_fr rs[2];
    uint8_t proof[PER_WORKER][192];
    cz_status st[PER_WORKER];
} worker;

static void *worker_main(void *arg)
{
    worker *wk = arg;
    cz_cuda_region_hooks hooks = { hook_lock, hook_unlock, wk->r };
    for (int k = 0; k < PER_WORKER; k++) {
        cz_errbuf e;
        cz_groth16_pending *p;
        wk->st[k] = cz_cuda_prove_start_ex(&p, wk->ctx, C.params, wk->gen, C.pce, &wk->x[k].in, pool, bg, &hooks, &e);
        if (wk->st[k] == CZ_OK) {
            cz_groth16_timings t;
            wk->st[k] = cz_groth16_prove_finish(p, wk->rs, wk->proof[k], &t, &e);
        }
    }
    return NULL;
}

static void test_driver_two_workers(void **state)
{
    (void)state;
    for (unsigned mask = 0; mask < 4; mask++) {
        czd_reset(DEVICE_BYTES);
        czd_set_lazy_mask(mask);
        region r = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0 };
        worker wk[WORKERS];
        pthread_t th[WORKERS];
        cz_cuda_ctx *ctx = open_ctx();
        uint64_t gen = cz_cuda_params_generation();
        for (int i = 0; i < WORKERS; i++) {
            wk[i].ctx = ctx;
            wk[i].gen = gen;
            wk[i].r = &r;
            for (int k = 0; k < PER_WORKER; k++) make_input(&wk[i].x[k], wk[i].rs);
        }
        for (int i = 0; i < WORKERS; i++) assert_int_equal(pthread_create(&th[i], NULL, worker_main, &wk[i]), 0);
        for (int i = 0; i < WORKERS; i++) pthread_join(th[i], NULL);
        for (int i = 0; i < WORKERS; i++)
            for (int k = 0; k < PER_WORKER; k++) {
                if (wk[i].st[k] != CZ_OK) fail_msg("mask %u, worker %d, proof %d: status %d", mask, i, k, wk[i].st[k]);
                assert_memory_equal(wk[i].proof[k], cpu_proof, 192);
                cz_witness_free(&wk[i].x[k].w);
            }
        assert_int_equal(r.locks, WORKERS * PER_WORKER);
        assert_int_equal(czd_device_bytes(), resident_bytes());
        cz_cuda_ctx_free(ctx);
    }
}

/* Two first proofs of one set, the second admitted while the first's
 * parameter upload is in flight: the arrays are allocated, not yet
 * resident. The device holds the parameters, two proofs and the reserve,
 * and less than a second copy of the parameters, so counting them again
 * (asking "resident?" instead of "allocated?") refuses the second proof. */
typedef struct {
    cz_cuda_ctx *ctx;
    uint64_t gen;
    input x;
    cz_fr rs[2];
    uint8_t proof[192];
    cz_status st;
    cz_errbuf e;
    atomic_bool done;
    bool started;
    pthread_t th;
} late_proof;

static void *late_main(void *arg)
{
    late_proof *lp = arg;
    cz_groth16_pending *p;
    lp->st = cz_cuda_prove_start_ex(&p, lp->ctx, C.params, lp->gen, C.pce, &lp->x.in, pool, bg, NULL, &lp->e);
    if (lp->st == CZ_OK) {
        cz_groth16_timings t;
        lp->st = cz_groth16_prove_finish(p, lp->rs, lp->proof, &t, &lp->e);
    }
    atomic_store(&lp->done, true);
    return NULL;
}

/* On the first proof's thread, at its parameter upload's last wait (the
 * first cudaStreamSynchronize of the session): the second proof starts
 * and this waits until it is refused or has allocated its buffers. */
static void start_late(void *arg)
{
    late_proof *lp = arg;
    size_t before = czd_device_bytes();
    assert_int_equal(pthread_create(&lp->th, NULL, late_main, lp), 0);
    lp->started = true;
    struct timespec nap = { 0, 200 * 1000 };
    while (!atomic_load(&lp->done) && czd_device_bytes() <= before) nanosleep(&nap, NULL);
}

static void test_driver_admitted_during_upload(void **state)
{
    (void)state;
    cz_errbuf e;
    size_t proof_bytes = cz_cuda_proof_device_bytes(C.params, C.pce);
    for (unsigned mask = 0; mask < 4; mask++) {
        czd_reset(resident_bytes() + 2 * proof_bytes + (1 << 20) + 4096);
        czd_set_lazy_mask(mask);
        late_proof lp;
        memset(&lp, 0, sizeof lp);
        lp.ctx = open_ctx();
        lp.gen = cz_cuda_params_generation();
        make_input(&lp.x, lp.rs);
        czd_on_stream_sync(1, start_late, &lp);
        uint8_t pr[192];
        cz_status st = prove(lp.ctx, lp.gen, false, pr, &e);
        if (st != CZ_OK) fail_msg("mask %u, first proof: %s", mask, e.msg);
        assert_true(lp.started);
        pthread_join(lp.th, NULL);
        if (lp.st != CZ_OK) fail_msg("mask %u, proof admitted during the upload: %s", mask, lp.e.msg);
        assert_memory_equal(pr, cpu_proof, 192);
        assert_memory_equal(lp.proof, cpu_proof, 192);
        assert_int_equal(czd_device_bytes(), resident_bytes());
        cz_witness_free(&lp.x.w);
        cz_cuda_ctx_free(lp.ctx);
    }
}

static void test_driver_single_kernels(void **state)
{
    (void)state;
    cz_errbuf e;
    const unsigned logn = 9;
    const size_t n = (size_t)1 << logn;
    for (unsigned mask = 0; mask < 2; mask++) {
        czd_reset(DEVICE_BYTES);
        czd_set_lazy_mask(mask);
        cz_cuda_ctx *ctx = open_ctx();
        cz_ntt_domain *d;
        assert_int_equal(cz_ntt_domain_create(&d, logn, NULL), CZ_OK);
        cz_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z[3];
        for (size_t i = 0; i < n; i++) cz_rng_fr(&x[i]);
        memcpy(y, x, n * sizeof *x);
        assert_int_equal(cz_cuda_ntt(ctx, y, logn, CZ_CUDA_NTT_COSET_FWD, &e), CZ_OK);
        cz_ntt_coset_forward(NULL, d, x);
        assert_memory_equal(x, y, n * sizeof *x);
        for (int k = 0; k < 3; k++) {
            z[k] = malloc(n * sizeof(cz_fr));
            for (size_t i = 0; i < n; i++) cz_rng_fr(&z[k][i]);
        }
        memcpy(x, z[0], n * sizeof *x);
        cz_fr *b2 = malloc(n * sizeof *b2), *c2 = malloc(n * sizeof *c2);
        memcpy(b2, z[1], n * sizeof *b2);
        memcpy(c2, z[2], n * sizeof *c2);
        assert_int_equal(cz_cuda_quotient_h(ctx, z[0], z[1], z[2], logn, &e), CZ_OK);
        cz_quotient_h(NULL, d, x, b2, c2);
        assert_memory_equal(x, z[0], n * sizeof *x);
        /* MSM over the parameters' H query */
        size_t np = C.params->n_h;
        cz_scalar *sc = malloc(np * sizeof *sc);
        for (size_t i = 0; i < np; i++) {
            cz_fr t;
            cz_rng_fr(&t);
            cz_scalar_from_fr(&sc[i], &t);
        }
        cz_g1_jac r1, r2;
        assert_int_equal(cz_cuda_msm_g1(ctx, &r1, C.params->h, sc, np, 0, &e), CZ_OK);
        assert_int_equal(cz_msm_g1(&r2, C.params->h, sc, np, NULL, NULL), CZ_OK);
        assert_true(cz_g1_jac_eq(&r1, &r2));
        assert_int_equal(czd_device_bytes(), 0); /* nothing resident: every buffer freed */
        free(sc);
        free(b2);
        free(c2);
        for (int k = 0; k < 3; k++) free(z[k]);
        free(x);
        free(y);
        cz_ntt_domain_free(d);
        cz_cuda_ctx_free(ctx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_proof),
        cmocka_unit_test(test_driver_each_alloc_fails),
        cmocka_unit_test(test_driver_call_faults),
        cmocka_unit_test(test_driver_budget_and_rows),
        cmocka_unit_test(test_driver_generations),
        cmocka_unit_test(test_driver_uploads_before_region),
        cmocka_unit_test(test_driver_two_workers),
        cmocka_unit_test(test_driver_admitted_during_upload),
        cmocka_unit_test(test_driver_single_kernels),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
