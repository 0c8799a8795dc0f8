/*
 * cuzk_cuda_check — the device check of the CUDA backend (run by
 * tools/device-check.sh on a GPU machine; needs no files).
 *
 *   1. correctness against the CPU backend: NTT (4 kinds) and the quotient
 *      at several sizes; G1 MSM at several sizes and scalar mixes (random,
 *      0/1-heavy, small, all equal) and windows; a large tiled MSM checked
 *      through the identity sum k_i·T[i mod K] = sum_k (sum_{i≡k} k_i)·T[k];
 *      full proofs of the mulchain circuit: GPU prove_start + the unchanged
 *      prove_finish must give the same 192 bytes as the CPU prover for the
 *      same (r, s), and verify; an unsatisfied witness must be refused.
 *   2. timings: MSM 2^a..2^b (device-resident tiled bases and device
 *      random scalars), NTT and quotient 2^a..2^b, a partition prove (GPU
 *      vs CPU prove_start).
 *   3. device memory flat: free memory before/after N small GPU proofs
 *      (some of them unsatisfied, to run the error path); a proof refused
 *      with CZ_ERR_BUDGET when nothing fits, and a good proof right after.
 * Prints one table (name, value, unit, status); exit status 0 iff every
 * check passed. Options: --quick, --msm-max L, --ntt-max L, --prove-log L,
 * --leak-proofs N, --device D, --threads T.
 */
#include "cuda/ctx_internal.h"
#include "cuda/dev_algo.h"
#include "cuzk/circuits.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;
static cz_pool *pool, *bg;
static cz_cuda_ctx *ctx;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void row(const char *name, double v, const char *unit, const char *status)
{
    printf("%-44s %14.3f %-10s %s\n", name, v, unit, status);
    fflush(stdout);
    if (!strcmp(status, "FAIL")) failures++;
}

static void fail_st(const char *what, cz_status st, const cz_errbuf *e)
{
    printf("%-44s %14s %-10s FAIL (%s: %s)\n", what, "-", "-", cz_status_str(st), e ? e->msg : "");
    failures++;
}

static uint64_t rng_state = 0x853c49e6748fea9bULL;
static uint64_t rnd(void)
{
    uint64_t x = (rng_state += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
static void rnd_fr(cz_fr *r)
{
    uint8_t b[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = rnd();
        memcpy(b + 8 * i, &v, 8);
    }
    cz_fr_from_uniform_bytes(r, b);
}

/* n affine points P0 + i·Q (cheap: one addition each) */
static cz_g1_affine *make_points(size_t n)
{
    cz_g1_jac g, p, q, *j = malloc(n * sizeof *j);
    cz_g1_affine *a = malloc(n * sizeof *a);
    uint64_t k1[4] = { rnd(), rnd(), rnd(), rnd() >> 3 }, k2[4] = { rnd(), rnd(), rnd(), rnd() >> 3 };
    cz_g1_generator_jac(&g);
    cz_g1_jac_mul_var(&p, &g, k1, 4);
    cz_g1_jac_mul_var(&q, &g, k2, 4);
    for (size_t i = 0; i < n; i++) {
        j[i] = p;
        cz_g1_jac_add_var(&p, &p, &q);
    }
    cz_g1_batch_to_affine(a, j, n);
    free(j);
    return a;
}

/* ---- 1. correctness ----------------------------------------------------------------- */
static void check_ntt(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    cz_ntt_domain *d;
    if (cz_ntt_domain_create(&d, log_n, pool) != CZ_OK) {
        fail_st("ntt domain", CZ_ERR_NOMEM, NULL);
        return;
    }
    cz_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    static const char *names[4] = { "fwd", "inv", "coset_fwd", "coset_inv" };
    for (int kind = 0; kind < 4; kind++) {
        for (size_t i = 0; i < n; i++) rnd_fr(&x[i]);
        memcpy(y, x, n * sizeof *x);
        cz_errbuf e;
        double t0 = now_ms();
        cz_status st = cz_cuda_ntt(ctx, x, log_n, (cz_cuda_ntt_kind)kind, &e);
        double t1 = now_ms();
        char name[64];
        snprintf(name, sizeof name, "check ntt %s 2^%u", names[kind], log_n);
        if (st != CZ_OK) {
            fail_st(name, st, &e);
            continue;
        }
        switch (kind) {
        case 0: cz_ntt_forward(pool, d, y); break;
        case 1: cz_ntt_inverse(pool, d, y); break;
        case 2: cz_ntt_coset_forward(pool, d, y); break;
        default: cz_ntt_coset_inverse(pool, d, y); break;
        }
        row(name, t1 - t0, "ms(h2h)", memcmp(x, y, n * sizeof *x) ? "FAIL" : "ok");
    }
    free(x);
    free(y);
    cz_ntt_domain_free(d);
}

static void check_quotient(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    cz_ntt_domain *d;
    if (cz_ntt_domain_create(&d, log_n, pool) != CZ_OK) return;
    cz_fr *v[6];
    for (int k = 0; k < 6; k++) v[k] = malloc(n * sizeof(cz_fr));
    for (size_t i = 0; i < n; i++) {
        rnd_fr(&v[0][i]);
        rnd_fr(&v[1][i]);
        cz_fr_mul(&v[2][i], &v[0][i], &v[1][i]);
    }
    for (int k = 0; k < 3; k++) memcpy(v[k + 3], v[k], n * sizeof(cz_fr));
    cz_errbuf e;
    cz_status st = cz_cuda_quotient_h(ctx, v[0], v[1], v[2], log_n, &e);
    char name[64];
    snprintf(name, sizeof name, "check quotient 2^%u", log_n);
    if (st != CZ_OK) {
        fail_st(name, st, &e);
    } else {
        cz_quotient_h(pool, d, v[3], v[4], v[5]);
        row(name, 0, "", memcmp(v[0], v[3], n * sizeof(cz_fr)) ? "FAIL" : "ok");
    }
    for (int k = 0; k < 6; k++) free(v[k]);
    cz_ntt_domain_free(d);
}

static void check_msm(size_t n, int mix, unsigned window)
{
    cz_g1_affine *b = make_points(n);
    cz_scalar *s = malloc(n * sizeof *s);
    cz_fr f;
    rnd_fr(&f);
    for (size_t i = 0; i < n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        unsigned r = (unsigned)(rnd() % 10);
        if (mix == 0 || (mix == 1 && r >= 7)) {
            cz_fr g;
            rnd_fr(&g);
            cz_scalar_from_fr(&s[i], &g);
        } else if (mix == 1) {
            s[i].l[0] = r & 1; /* 0/1-heavy (PoRep booleans) */
        } else if (mix == 2) {
            s[i].l[0] = rnd() % 1000; /* small values: skewed buckets */
        } else {
            cz_scalar_from_fr(&s[i], &f); /* all equal: one bucket per window */
        }
    }
    cz_g1_jac ref, got;
    cz_errbuf e;
    cz_status st = cz_msm_g1(&ref, b, s, n, pool, NULL);
    double t0 = now_ms();
    if (st == CZ_OK) st = cz_cuda_msm_g1(ctx, &got, b, s, n, window, &e);
    double t1 = now_ms();
    static const char *mixes[4] = { "random", "bool", "small", "equal" };
    char name[64];
    snprintf(name, sizeof name, "check msm_g1 n=%zu %s c=%u", n, mixes[mix], window);
    if (st != CZ_OK) fail_st(name, st, &e);
    else row(name, t1 - t0, "ms(h2h)", cz_g1_jac_eq(&ref, &got) ? "ok" : "FAIL");
    free(b);
    free(s);
}

/* tiled large MSM checked through residue-class scalar sums */
static void check_msm_tiled(unsigned log_n)
{
    size_t n = (size_t)1 << log_n, K = 4096;
    cz_g1_affine *t = make_points(K), *d_src = NULL, *d_b = NULL;
    cz_fr *d_x = NULL, *hx = malloc(n * sizeof *hx), *sum = calloc(K, sizeof *sum);
    cz_g1_jac got, ref;
    cz_errbuf e, *err = &e;
    char name[64];
    snprintf(name, sizeof name, "check msm_g1 tiled n=2^%u", log_n);
    cz_status st = czc_enter(ctx, err);
    if (st != CZ_OK) {
        fail_st(name, st, err);
        goto done;
    }
    CZC_TRY(cudaMalloc((void **)&d_src, K * sizeof *d_src));
    CZC_TRY(cudaMalloc((void **)&d_b, n * sizeof *d_b));
    CZC_TRY(cudaMalloc((void **)&d_x, n * sizeof *d_x));
    CZC_TRY(cudaMemcpy(d_src, t, K * sizeof *t, cudaMemcpyHostToDevice));
    if ((st = czc_tile_bases(d_b, n, d_src, K, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_fill_random_fr(d_x, n, 12345, ctx->s_comp, err)) != CZ_OK) goto out;
    CZC_TRY(cudaMemcpyAsync(hx, d_x, n * sizeof *hx, cudaMemcpyDeviceToHost, ctx->s_comp));
    if ((st = czc_scalars_from_mont((cz_scalar *)d_x, d_x, n, ctx->s_comp, err)) != CZ_OK) goto out;
    st = czc_msm_g1(&got, d_b, (const cz_scalar *)d_x, n, NULL, ctx->s_comp, err);
out:
    cudaFree(d_src);
    cudaFree(d_b);
    cudaFree(d_x);
    st = czc_leave(ctx, st, err);
    if (st != CZ_OK) {
        fail_st(name, st, err);
        goto done;
    }
    for (size_t i = 0; i < n; i++) cz_fr_add(&sum[i % K], &sum[i % K], &hx[i]);
    cz_msm_scalars_from_fr((cz_scalar *)sum, sum, K, pool);
    if (cz_msm_g1(&ref, t, (const cz_scalar *)sum, K, pool, NULL) != CZ_OK) {
        fail_st(name, CZ_ERR_INTERNAL, NULL);
        goto done;
    }
    row(name, 0, "", cz_g1_jac_eq(&ref, &got) ? "ok" : "FAIL");
done:
    free(t);
    free(hx);
    free(sum);
}

/* ---- proofs ------------------------------------------------------------------------- */
typedef struct {
    cz_mulchain mc;
    cz_pce *pce;
    cz_groth16_params *params;
    size_t m;
} circuit;

static int circuit_init(circuit *c, size_t n_mul, double *setup_ms)
{
    memset(c, 0, sizeof *c);
    c->mc.n_mul = n_mul;
    c->mc.n_extra_inputs = 2;
    cz_fr_from_u64(&c->mc.x0, 5);
    cz_errbuf e;
    double t0 = now_ms();
    cz_status st = cz_pce_record(&c->pce, cz_mulchain_synth, &c->mc, NULL);
    if (st == CZ_OK) st = cz_groth16_setup(&c->params, c->pce, pool, NULL, &e);
    if (setup_ms) *setup_ms = now_ms() - t0;
    if (st != CZ_OK) {
        fail_st("setup", st, &e);
        return -1;
    }
    c->m = cz_groth16_params_domain(c->params);
    return 0;
}

static void circuit_free(circuit *c)
{
    cz_groth16_params_free(c->params);
    cz_pce_free(c->pce);
}

/* synthesize + prove_start (GPU or CPU) + prove_finish with fixed r, s */
static cz_status prove(const circuit *c, bool gpu, int tamper, uint8_t proof[192], double *start_ms, cz_errbuf *e)
{
    cz_witness w;
    cz_groth16_input in = { malloc(c->m * sizeof(cz_fr)), malloc(c->m * sizeof(cz_fr)),
                            malloc(c->m * sizeof(cz_fr)), c->m, &w };
    cz_status st = cz_synthesize(c->pce, cz_mulchain_synth, &c->mc, pool, &w, in.a, in.b, in.c, c->m);
    if (st != CZ_OK) {
        free(in.a);
        free(in.b);
        free(in.c);
        return cz_err(e, st, "synthesize failed");
    }
    if (tamper) cz_fr_add(&in.c[1], &in.c[1], &CZ_FR_ONE);
    cz_fr rs[2];
    cz_fr_from_u64(&rs[0], 1234567);
    cz_fr_from_u64(&rs[1], 7654321);
    cz_groth16_pending *p;
    double t0 = now_ms();
    st = gpu ? cz_cuda_prove_start(&p, ctx, c->params, c->pce, &in, pool, bg, e)
             : cz_groth16_prove_start(&p, c->params, c->pce, &in, pool, bg, e);
    if (start_ms) *start_ms = now_ms() - t0;
    if (st == CZ_OK) st = cz_groth16_prove_finish(p, rs, proof, NULL, e);
    cz_witness_free(&w);
    if (in.a || in.b || in.c) {
        printf("prove_start left a/b/c allocated\n");
        failures++;
    }
    return st;
}

static bool verify(const circuit *c, const uint8_t proof[192])
{
    cz_groth16_pvk *pvk;
    cz_groth16_proof pr;
    cz_errbuf e;
    cz_fr pub[4];
    cz_mulchain_public_inputs(&c->mc, pub);
    if (cz_groth16_pvk_create(&pvk, &c->params->vk) != CZ_OK) return false;
    cz_status st = cz_groth16_proof_decode(&pr, proof, &e);
    if (st == CZ_OK) st = cz_groth16_verify(pvk, &pr, pub, 4, &e);
    cz_groth16_pvk_free(pvk);
    return st == CZ_OK;
}

static void check_proof(size_t n_mul, bool timing)
{
    circuit c;
    double setup_ms;
    if (circuit_init(&c, n_mul, &setup_ms)) return;
    uint8_t pg[192], pc[192];
    double tg, tc, tg2;
    cz_errbuf e;
    char name[80];
    snprintf(name, sizeof name, "proof mulchain n_mul=%zu m=2^%d", n_mul, __builtin_ctzll(c.m));
    cz_status st = prove(&c, true, 0, pg, &tg, &e); /* includes the parameter upload */
    if (st == CZ_OK) st = prove(&c, true, 0, pg, &tg2, &e);
    if (st != CZ_OK) {
        fail_st(name, st, &e);
        circuit_free(&c);
        return;
    }
    cz_status stc = prove(&c, false, 0, pc, &tc, &e);
    bool same = stc == CZ_OK && !memcmp(pg, pc, 192);
    row(name, 0, "", same && verify(&c, pg) ? "ok" : "FAIL");
    if (timing) {
        char n2[96];
        snprintf(n2, sizeof n2, "  setup (CPU, once) m=2^%d", __builtin_ctzll(c.m));
        row(n2, setup_ms, "ms", "");
        snprintf(n2, sizeof n2, "  prove_start GPU first (+upload) m=2^%d", __builtin_ctzll(c.m));
        row(n2, tg, "ms", "");
        snprintf(n2, sizeof n2, "  prove_start GPU resident m=2^%d", __builtin_ctzll(c.m));
        row(n2, tg2, "ms", "");
        snprintf(n2, sizeof n2, "  prove_start CPU m=2^%d", __builtin_ctzll(c.m));
        row(n2, tc, "ms", "");
    }
    st = prove(&c, true, 1, pg, NULL, &e);
    snprintf(name, sizeof name, "unsatisfied refused n_mul=%zu", n_mul);
    row(name, 0, "", st == CZ_ERR_UNSATISFIED ? "ok" : "FAIL");
    cz_cuda_params_release(ctx);
    circuit_free(&c);
}

static void check_leak(int nproofs)
{
    circuit c;
    if (circuit_init(&c, 1000, NULL)) return;
    size_t f0 = 0, f1 = 0, tot = 0;
    uint8_t proof[192];
    cz_errbuf e;
    cz_status st = prove(&c, true, 0, proof, NULL, &e); /* warm: resident params */
    if (st == CZ_OK) st = cz_cuda_mem_info(ctx, &f0, &tot);
    double t0 = now_ms();
    int ok = 0;
    for (int i = 0; i < nproofs && st == CZ_OK; i++) {
        st = prove(&c, true, i % 50 == 7, proof, NULL, &e); /* some unsatisfied: the error path too */
        if (i % 50 == 7) st = st == CZ_ERR_UNSATISFIED ? CZ_OK : CZ_ERR_INTERNAL;
        else ok += st == CZ_OK;
    }
    double t1 = now_ms();
    if (st == CZ_OK) st = cz_cuda_mem_info(ctx, &f1, &tot);
    if (st != CZ_OK) {
        fail_st("leak check", st, &e);
    } else {
        char name[64];
        row("device free before (MiB)", (double)f0 / 1048576.0, "MiB", "");
        snprintf(name, sizeof name, "device free after %d proofs (MiB)", nproofs);
        row(name, (double)f1 / 1048576.0, "MiB", "");
        double drift = ((double)f0 - (double)f1) / 1048576.0;
        row("device memory drift", drift, "MiB", drift < 16.0 ? "ok" : "FAIL");
        row("small proofs/s (m=2^10, with finish)", ok / ((t1 - t0) / 1e3), "proof/s", "");
    }
    cz_cuda_params_release(ctx);
    circuit_free(&c);
}

/* Refusal when the device cannot fit the work, and recovery afterwards
 * (the lock is not left held, the context is not broken). */
static void check_budget(void)
{
    circuit c;
    if (circuit_init(&c, 1000, NULL)) return;
    uint8_t proof[192];
    cz_errbuf e;
    size_t saved = ctx->reserve;
    pthread_mutex_lock(&ctx->lock);
    ctx->reserve = (size_t)1 << 60; /* nothing fits */
    pthread_mutex_unlock(&ctx->lock);
    cz_status st = prove(&c, true, 0, proof, NULL, &e);
    row("budget refusal (CZ_ERR_BUDGET)", 0, "", st == CZ_ERR_BUDGET ? "ok" : "FAIL");
    if (st == CZ_ERR_BUDGET) printf("  message: %s\n", e.msg);
    pthread_mutex_lock(&ctx->lock);
    ctx->reserve = saved;
    pthread_mutex_unlock(&ctx->lock);
    st = prove(&c, true, 0, proof, NULL, &e);
    row("proof after a refusal", 0, "", st == CZ_OK && verify(&c, proof) ? "ok" : "FAIL");
    cz_cuda_params_release(ctx);
    circuit_free(&c);
}

/* ---- 2. timings (device-resident data) ------------------------------------------------------ */
static void time_msm(unsigned lo, unsigned hi)
{
    size_t K = 1 << 16, nmax = (size_t)1 << hi;
    cz_g1_affine *t = make_points(K), *d_src = NULL, *d_b = NULL;
    cz_fr *d_x = NULL;
    cz_errbuf e, *err = &e;
    cz_status st = czc_enter(ctx, err);
    if (st != CZ_OK) {
        fail_st("time msm", st, err);
        free(t);
        return;
    }
    CZC_TRY(cudaMalloc((void **)&d_src, K * sizeof *d_src));
    CZC_TRY(cudaMalloc((void **)&d_b, nmax * sizeof *d_b));
    CZC_TRY(cudaMalloc((void **)&d_x, nmax * sizeof *d_x));
    CZC_TRY(cudaMemcpy(d_src, t, K * sizeof *t, cudaMemcpyHostToDevice));
    if ((st = czc_tile_bases(d_b, nmax, d_src, K, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_fill_random_fr(d_x, nmax, 777, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_scalars_from_mont((cz_scalar *)d_x, d_x, nmax, ctx->s_comp, err)) != CZ_OK) goto out;
    CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
    for (unsigned lg = lo; lg <= hi; lg++) {
        size_t n = (size_t)1 << lg;
        cz_g1_jac r;
        double best = 1e30;
        for (int rep = 0; rep < (lg < 24 ? 3 : 1); rep++) {
            double t0 = now_ms();
            if ((st = czc_msm_g1(&r, d_b, (const cz_scalar *)d_x, n, NULL, ctx->s_comp, err)) != CZ_OK) goto out;
            double dt = now_ms() - t0;
            if (dt < best) best = dt;
        }
        char name[64];
        snprintf(name, sizeof name, "time msm_g1 2^%u (c=%u)", lg, cz_d_msm_window(n));
        row(name, best, "ms", "");
        snprintf(name, sizeof name, "time msm_g1 2^%u per point", lg);
        row(name, best * 1e6 / (double)n, "ns/point", "");
    }
out:
    cudaFree(d_src);
    cudaFree(d_b);
    cudaFree(d_x);
    st = czc_leave(ctx, st, err);
    if (st != CZ_OK) fail_st("time msm", st, err);
    free(t);
}

static void time_ntt(unsigned lo, unsigned hi)
{
    for (unsigned lg = lo; lg <= hi; lg++) {
        size_t n = (size_t)1 << lg;
        cz_fr *d_x[3] = { NULL, NULL, NULL };
        czc_domain dom = { 0 };
        cz_errbuf e, *err = &e;
        double t_ntt = 0, t_q = 0;
        cz_status st = czc_enter(ctx, err);
        if (st != CZ_OK) {
            fail_st("time ntt", st, err);
            return;
        }
        if ((st = czc_domain_build(&dom, lg, ctx->s_comp, err)) != CZ_OK) goto out;
        for (int k = 0; k < 3; k++) {
            CZC_TRY(cudaMalloc((void **)&d_x[k], n * sizeof(cz_fr)));
            if ((st = czc_fill_random_fr(d_x[k], n, 99 + (uint64_t)k, ctx->s_comp, err)) != CZ_OK) goto out;
        }
        CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
        double t0 = now_ms();
        if ((st = czc_ntt(d_x[0], &dom, CZC_NTT_FWD, ctx->s_comp, err)) != CZ_OK) goto out;
        CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
        t_ntt = now_ms() - t0;
        t0 = now_ms();
        if ((st = czc_quotient(d_x[0], d_x[1], d_x[2], &dom, ctx->s_comp, err)) != CZ_OK) goto out;
        CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
        t_q = now_ms() - t0;
    out:
        for (int k = 0; k < 3; k++) cudaFree(d_x[k]);
        if (dom.tw) czc_domain_free(&dom);
        st = czc_leave(ctx, st, err);
        if (st != CZ_OK) {
            fail_st("time ntt", st, err);
            return;
        }
        char name[64];
        snprintf(name, sizeof name, "time ntt fwd 2^%u", lg);
        row(name, t_ntt, "ms", "");
        snprintf(name, sizeof name, "time quotient (7 NTTs) 2^%u", lg);
        row(name, t_q, "ms", "");
    }
}

int main(int argc, char **argv)
{
    bool quick = false;
    int msm_max = 26, ntt_max = 27, prove_log = 18, leak = 300, dev = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "--quick")) quick = true;
        else if (!strcmp(a, "--msm-max")) msm_max = atoi(v), i++;
        else if (!strcmp(a, "--ntt-max")) ntt_max = atoi(v), i++;
        else if (!strcmp(a, "--prove-log")) prove_log = atoi(v), i++;
        else if (!strcmp(a, "--leak-proofs")) leak = atoi(v), i++;
        else if (!strcmp(a, "--device")) dev = atoi(v), i++;
        else if (!strcmp(a, "--threads")) threads = atoi(v), i++;
        else {
            fprintf(stderr, "usage: %s [--quick] [--msm-max L] [--ntt-max L] [--prove-log L] [--leak-proofs N] "
                            "[--device D] [--threads T]\n", argv[0]);
            return 2;
        }
    }
    if (quick) {
        msm_max = msm_max < 22 ? msm_max : 22;
        ntt_max = ntt_max < 22 ? ntt_max : 22;
        prove_log = prove_log < 14 ? prove_log : 14;
        leak = leak < 50 ? leak : 50;
    }
    cz_errbuf e;
    cz_cuda_opts o = { dev, 0, 0 };
    cz_status st = cz_cuda_ctx_create(&ctx, &o, &e);
    if (st != CZ_OK) {
        printf("cuzk_cuda_check: %s\n", e.msg);
        return 3;
    }
    if (cz_pool_create(&pool, (unsigned)threads, "chk") != CZ_OK || cz_pool_create(&bg, 1, "chkbg") != CZ_OK) {
        printf("cuzk_cuda_check: cannot create thread pools\n");
        return 3;
    }
    size_t fr, tot;
    if (cz_cuda_mem_info(ctx, &fr, &tot) == CZ_OK)
        printf("device: %s, %.1f GiB free of %.1f GiB; CPU pool %u threads\n", cz_cuda_ctx_name(ctx),
               (double)fr / 1073741824.0, (double)tot / 1073741824.0, cz_pool_size(pool));
    printf("%-44s %14s %-10s %s\n", "check", "value", "unit", "status");
    double T0 = now_ms();

    unsigned nl[] = { 0, 1, 2, 5, 10, 16, 20 };
    for (size_t i = 0; i < sizeof nl / sizeof *nl; i++) check_ntt(nl[i]);
    unsigned ql[] = { 1, 10, 16, 20 };
    for (size_t i = 0; i < sizeof ql / sizeof *ql; i++) check_quotient(ql[i]);
    size_t mn[] = { 1, 2, 7, 100, 1000, 1 << 14, 1 << 16 };
    for (size_t i = 0; i < sizeof mn / sizeof *mn; i++)
        for (int mix = 0; mix < 4; mix++) check_msm(mn[i], mix, 0);
    unsigned cs[] = { 1, 5, 11, 16, 20 };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) check_msm(5000, 0, cs[i]);
    check_msm_tiled(quick ? 18 : 22);
    check_proof(100, false);
    check_proof(5000, false);
    check_proof(((size_t)1 << prove_log) - 8, true);
    check_leak(leak);
    check_budget();
    time_msm(20, (unsigned)msm_max);
    time_ntt(20, (unsigned)ntt_max);
    row("total check time", (now_ms() - T0) / 1e3, "s", "");
    printf("RESULT: %s (%d failure%s)\n", failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
    cz_pool_destroy(pool);
    cz_pool_destroy(bg);
    cz_cuda_ctx_free(ctx);
    return failures ? 1 : 0;
}
