/*
 * cuzk_cuda_check — the device check of the CUDA backend (run by
 * tools/device-check.sh on a GPU machine; needs no files). Stages, in
 * order (--plan prints them with their sizes, without a device):
 *
 *   intrinsics  __umul64hi / __popcll / __brevll on the device vs the host
 *               emulations the host tests run (dev_intrin.h), 2^24 pairs;
 *   mul32       the 32-bit carry-chain Montgomery multiplication
 *               (dev_mul32.h, PTX) vs the 64-bit CIOS on 2^22 Fp and Fr
 *               pairs, and both timed: the evidence for CZ_CUDA_MUL32 (a
 *               mismatch is reported, not counted: it is not the default);
 *   small       NTT (4 kinds) 2^0..2^20, quotient 2^1..2^20, G1 MSM
 *               n = 1..2^16 x 4 scalar mixes, forced windows 1..20: GPU vs
 *               CPU, bit-exact;
 *   msm         G1 MSM on 2^msm-max DISTINCT bases (every size is a prefix
 *               of one array; see big_msm for the bases and the CPU
 *               reference), checked and timed at 2^20 .. 2^msm-max (2^25
 *               and 2^26 run 2 and 4 device chunks of 2^24), 2^22 again in
 *               chunks of 2^20, 2^24 with all scalars equal (the bucket
 *               pieces' worst case), and the 2^cpu-msm device result
 *               against the CPU library's full MSM;
 *   ntt         NTT forward and the quotient at 2^ntt-check-max vs the CPU;
 *   proofs      GPU prove_start + the unchanged prove_finish give the CPU
 *               prover's 192 bytes for the same (r, s) and verify; an
 *               unsatisfied witness is refused;
 *   memory      device free memory sampled over --leak-proofs small proofs
 *               (1 in 50 unsatisfied: the error path too) and over repeated
 *               single-kernel calls; drift must stay under 1 MiB;
 *   budget      a proof refused with CZ_ERR_BUDGET when nothing fits, a
 *               good proof right after;
 *   timings     NTT and quotient 2^20..2^ntt-max on device-resident data.
 * --host-selftest L: no device; the msm stage's CPU reference against the
 * CPU library's full MSM on 2^L points (run by device-check.sh --dry-run).
 * --deadline S: a correctness stage that would start after S seconds is
 * not run and counts as a failure (a timing stage is skipped).
 * Prints one table (name, value, unit, status); the last line is
 * "cuzk_cuda_check: PASS|FAIL (n failures)"; exit status 0 iff every check
 * passed, 3 when there is no usable device.
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
#include "common/mono_clock.h"

static int failures;
static cz_pool *pool, *bg;
static cz_cuda_ctx *ctx;

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

/* ---- parallel data generation (the production sizes need 16 threads) --------------- */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* uniform Fr element number i of stream seed (counter based: any thread
 * can produce any index) */
static void fr_at(cz_fr *r, uint64_t seed, uint64_t i)
{
    uint8_t b[64];
    for (int k = 0; k < 8; k++) {
        uint64_t v = mix64(seed * 0x2545f4914f6cdd1dULL ^ (i * 8 + (uint64_t)k));
        memcpy(b + 8 * k, &v, 8);
    }
    cz_fr_from_uniform_bytes(r, b);
}

typedef struct {
    cz_fr *x;
    uint64_t seed;
} fill_job;

static void fill_range(void *arg, size_t lo, size_t hi)
{
    fill_job *j = arg;
    for (size_t i = lo; i < hi; i++) fr_at(&j->x[i], j->seed, i);
}

static void fill_fr(cz_fr *x, size_t n, uint64_t seed)
{
    fill_job j = { x, seed };
    cz_pool_parallel_range(pool, 0, n, 1 << 14, fill_range, &j);
}

typedef struct {
    cz_fr *a;
    const cz_fr *b;
} mul_job;

static void mul_range(void *arg, size_t lo, size_t hi)
{
    mul_job *j = arg;
    for (size_t i = lo; i < hi; i++) cz_fr_mul(&j->a[i], &j->a[i], &j->b[i]);
}

static double elapsed_s(void);
static double deadline_s; /* 0: none */

/* false (and one FAIL row) when a correctness stage would start past the deadline */
static bool stage(const char *name)
{
    double t = elapsed_s();
    printf("== %s (t = %.1f s)\n", name, t);
    fflush(stdout);
    if (deadline_s > 0 && t > deadline_s) {
        printf("%-44s %14s %-10s FAIL (not run: past the %.0f s deadline)\n", name, "-", "-", deadline_s);
        failures++;
        return false;
    }
    return true;
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
/* kinds: bit k set = check kind k (fwd, inv, coset_fwd, coset_inv) */
static void check_ntt(unsigned log_n, unsigned kinds)
{
    size_t n = (size_t)1 << log_n;
    cz_ntt_domain *d;
    if (cz_ntt_domain_create(&d, log_n, pool) != CZ_OK) {
        fail_st("ntt domain", CZ_ERR_NOMEM, NULL);
        return;
    }
    cz_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    static const char *names[4] = { "fwd", "inv", "coset_fwd", "coset_inv" };
    if (!x || !y) {
        fail_st("ntt: host memory", CZ_ERR_NOMEM, NULL);
        kinds = 0;
    }
    for (int kind = 0; kind < 4; kind++) {
        if (!(kinds >> kind & 1)) continue;
        fill_fr(x, n, 1000 + log_n * 4 + (unsigned)kind);
        memcpy(y, x, n * sizeof *x);
        cz_errbuf e;
        double t0 = cz_mono_ms();
        cz_status st = cz_cuda_ntt(ctx, x, log_n, (cz_cuda_ntt_kind)kind, &e);
        double t1 = cz_mono_ms();
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
        double t2 = cz_mono_ms();
        bool same = !memcmp(x, y, n * sizeof *x);
        row(name, t1 - t0, "ms(h2h)", same ? "ok" : "FAIL");
        if (log_n >= 24) {
            snprintf(name, sizeof name, "  CPU reference ntt %s 2^%u", names[kind], log_n);
            row(name, t2 - t1, "ms", "");
        }
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
    char name[64];
    snprintf(name, sizeof name, "check quotient 2^%u", log_n);
    bool ok = true;
    for (int k = 0; k < 6; k++) ok &= (v[k] = malloc(n * sizeof(cz_fr))) != NULL;
    if (!ok) {
        fail_st(name, CZ_ERR_NOMEM, NULL);
        goto done;
    }
    /* a satisfied system: c = a·b */
    fill_fr(v[0], n, 2000 + log_n);
    fill_fr(v[1], n, 3000 + log_n);
    memcpy(v[2], v[0], n * sizeof(cz_fr));
    mul_job mj = { v[2], v[1] };
    cz_pool_parallel_range(pool, 0, n, 1 << 14, mul_range, &mj);
    for (int k = 0; k < 3; k++) memcpy(v[k + 3], v[k], n * sizeof(cz_fr));
    cz_errbuf e;
    double t0 = cz_mono_ms();
    cz_status st = cz_cuda_quotient_h(ctx, v[0], v[1], v[2], log_n, &e);
    double t1 = cz_mono_ms();
    if (st != CZ_OK) {
        fail_st(name, st, &e);
    } else {
        cz_quotient_h(pool, d, v[3], v[4], v[5]);
        double t2 = cz_mono_ms();
        row(name, t1 - t0, "ms(h2h)", memcmp(v[0], v[3], n * sizeof(cz_fr)) ? "FAIL" : "ok");
        if (log_n >= 24) {
            snprintf(name, sizeof name, "  CPU reference quotient 2^%u", log_n);
            row(name, t2 - t1, "ms", "");
        }
    }
done:
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
    double t0 = cz_mono_ms();
    if (st == CZ_OK) st = cz_cuda_msm_g1(ctx, &got, b, s, n, window, &e);
    double t1 = cz_mono_ms();
    static const char *mixes[4] = { "random", "bool", "small", "equal" };
    char name[64];
    snprintf(name, sizeof name, "check msm_g1 n=%zu %s c=%u", n, mixes[mix], window);
    if (st != CZ_OK) fail_st(name, st, &e);
    else row(name, t1 - t0, "ms(h2h)", cz_g1_jac_eq(&ref, &got) ? "ok" : "FAIL");
    free(b);
    free(s);
}

/* ---- msm: production sizes on distinct bases ------------------------------------------
 * Bases: P_i = A[i mod K] + B[i div K], K = 2^16, with A (2^16 points) and
 * B (n/K points) independent random multiples of the generator. All 2^26
 * bases are distinct (a coincidence A_k + B_j = A_k' + B_j' would need a
 * relation between random discrete logs) and the device reads them from a
 * 6 GiB array: nothing fits in L2. Built on the CPU with the CPU library,
 * in parallel: one mixed addition and a share of a batch inversion each.
 * Scalars: uniform Fr (counter hash), with 0, 1 and r - 1 mixed in.
 *
 * CPU reference at every size n (a multiple of K): by linearity
 *   sum_i s_i·P_i = sum_k SA_k·A_k + sum_j SB_j·B_j,
 *   SA_k = sum_{i mod K = k} s_i,  SB_j = sum_{i div K = j} s_i  (mod r),
 * i.e. n Fr additions and two CPU MSMs of 2^16 and n/2^16 points: a few
 * seconds at 2^26 where a full CPU MSM would take a minute or more of the
 * budget. It is exact (the same group element, compared as canonical
 * affine bytes) and independent of both MSM implementations; it relies
 * only on the bases being what the CPU built, which holds by
 * construction. The CPU library's full MSM is run once as well, at
 * 2^cpu_msm_log (default 2^24, one device chunk), against the device. */
#define BIG_K_LOG 16

typedef struct {
    cz_g1_jac *out;
    uint64_t seed;
} mult_job;

static void mult_range(void *arg, size_t lo, size_t hi)
{
    mult_job *j = arg;
    cz_g1_jac g;
    cz_g1_generator_jac(&g);
    for (size_t i = lo; i < hi; i++) {
        uint64_t k[4] = { mix64(j->seed ^ (4 * i)), mix64(j->seed ^ (4 * i + 1)), mix64(j->seed ^ (4 * i + 2)),
                          mix64(j->seed ^ (4 * i + 3)) >> 3 };
        cz_g1_jac_mul_var(&j->out[i], &g, k, 4);
    }
}

/* n random multiples of the generator, affine */
static cz_g1_affine *random_points(size_t n, uint64_t seed)
{
    cz_g1_jac *j = malloc(n * sizeof *j);
    cz_g1_affine *a = malloc(n * sizeof *a);
    if (!j || !a) {
        free(j);
        free(a);
        return NULL;
    }
    mult_job mj = { j, seed };
    cz_pool_parallel_range(pool, 0, n, 64, mult_range, &mj);
    cz_g1_batch_to_affine(a, j, n);
    free(j);
    return a;
}

typedef struct {
    cz_g1_affine *bases;
    cz_scalar *sc;
    const cz_g1_affine *A, *B;
    uint64_t seed;
} big_job;

#define BIG_SUB 4096
static void big_range(void *arg, size_t lo, size_t hi)
{
    big_job *j = arg;
    cz_g1_jac *tmp = malloc(BIG_SUB * sizeof *tmp);
    cz_scalar rm1;
    memcpy(rm1.l, CZ_FR_MODULUS, sizeof rm1.l);
    rm1.l[0] -= 1;
    for (size_t s0 = lo; s0 < hi; s0 += BIG_SUB) {
        size_t len = hi - s0 < BIG_SUB ? hi - s0 : BIG_SUB;
        for (size_t t = 0; t < len; t++) {
            size_t i = s0 + t;
            cz_g1_jac_from_affine(&tmp[t], &j->A[i & (((size_t)1 << BIG_K_LOG) - 1)]);
            cz_g1_jac_add_affine_var(&tmp[t], &tmp[t], &j->B[i >> BIG_K_LOG]);
            cz_fr f;
            fr_at(&f, j->seed, i);
            if (i % 16 == 3) memset(&j->sc[i], 0, sizeof j->sc[i]);
            else if (i % 16 == 5) {
                memset(&j->sc[i], 0, sizeof j->sc[i]);
                j->sc[i].l[0] = 1;
            } else if (i % 4096 == 7) j->sc[i] = rm1;
            else cz_scalar_from_fr(&j->sc[i], &f);
        }
        cz_g1_batch_to_affine(j->bases + s0, tmp, len);
    }
    free(tmp);
}

typedef struct {
    const cz_scalar *sc;
    cz_fr *sa, *sb;
    size_t nj;
} sum_job;

/* modular addition is the same on canonical and Montgomery limbs (both < r) */
static void sum_b_range(void *arg, size_t lo, size_t hi)
{
    sum_job *j = arg;
    for (size_t b = lo; b < hi; b++) {
        cz_fr acc = CZ_FR_ZERO, v;
        for (size_t k = 0; k < ((size_t)1 << BIG_K_LOG); k++) {
            memcpy(v.l, j->sc[(b << BIG_K_LOG) + k].l, sizeof v.l);
            cz_fr_add(&acc, &acc, &v);
        }
        j->sb[b] = acc;
    }
}

static void sum_a_range(void *arg, size_t lo, size_t hi)
{
    sum_job *j = arg;
    for (size_t k = lo; k < hi; k++) j->sa[k] = CZ_FR_ZERO;
    for (size_t b = 0; b < j->nj; b++)
        for (size_t k = lo; k < hi; k++) {
            cz_fr v;
            memcpy(v.l, j->sc[(b << BIG_K_LOG) + k].l, sizeof v.l);
            cz_fr_add(&j->sa[k], &j->sa[k], &v);
        }
}

/* reference sum over the first n points (n a multiple of K) */
static cz_status big_reference(cz_g1_affine *out, const cz_scalar *sc, size_t n, const cz_g1_affine *A,
                               const cz_g1_affine *B)
{
    size_t K = (size_t)1 << BIG_K_LOG, nj = n >> BIG_K_LOG;
    cz_fr *sa = malloc(K * sizeof *sa), *sb = malloc(nj * sizeof *sb);
    cz_status st = CZ_ERR_NOMEM;
    cz_g1_jac ra, rb;
    if (!sa || !sb) goto out;
    sum_job j = { sc, sa, sb, nj };
    cz_pool_parallel_range(pool, 0, nj, 1, sum_b_range, &j);
    cz_pool_parallel_range(pool, 0, K, 512, sum_a_range, &j);
    if ((st = cz_msm_g1(&ra, A, (const cz_scalar *)sa, K, pool, NULL)) != CZ_OK) goto out;
    if ((st = cz_msm_g1(&rb, B, (const cz_scalar *)sb, nj, pool, NULL)) != CZ_OK) goto out;
    cz_g1_jac_add(&ra, &ra, &rb);
    cz_g1_jac_to_affine(out, &ra);
out:
    free(sa);
    free(sb);
    return st;
}

/* the 2^log_n bases and scalars (every smaller size is a prefix) */
static bool big_generate(size_t nmax, cz_g1_affine **A, cz_g1_affine **B, cz_g1_affine **bases, cz_scalar **sc)
{
    *A = random_points((size_t)1 << BIG_K_LOG, 0xA11CE);
    *B = random_points(nmax >> BIG_K_LOG, 0xB0B);
    *bases = malloc(nmax * sizeof **bases);
    *sc = malloc(nmax * sizeof **sc);
    if (!*A || !*B || !*bases || !*sc) return false;
    big_job bj = { *bases, *sc, *A, *B, 4242 };
    cz_pool_parallel_range(pool, 0, nmax, (size_t)1 << 16, big_range, &bj);
    return true;
}

/* --host-selftest: the linearity reference against the CPU library's full
 * MSM on 2^log_n points, and a changed scalar must change it (no device) */
static int host_selftest(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    cz_g1_affine *A, *B, *bases, ra, rc;
    cz_scalar *sc;
    cz_g1_jac r;
    int bad = 1;
    if (!big_generate(n, &A, &B, &bases, &sc)) goto out;
    double t0 = cz_mono_ms();
    if (big_reference(&ra, sc, n, A, B) != CZ_OK) goto out;
    double t1 = cz_mono_ms();
    if (cz_msm_g1(&r, bases, sc, n, pool, NULL) != CZ_OK) goto out;
    double t2 = cz_mono_ms();
    cz_g1_jac_to_affine(&rc, &r);
    bad = memcmp(&ra, &rc, sizeof ra) != 0;
    printf("host selftest 2^%u: linearity reference %s the full CPU MSM (%.0f ms vs %.0f ms)\n", log_n,
           bad ? "DIFFERS FROM" : "equals", t1 - t0, t2 - t1);
    sc[n / 3].l[0] ^= 1; /* negative control */
    if (big_reference(&rc, sc, n, A, B) != CZ_OK || !memcmp(&ra, &rc, sizeof ra)) {
        printf("host selftest: a changed scalar did not change the reference\n");
        bad = 1;
    }
out:
    free(A);
    free(B);
    free(bases);
    free(sc);
    return bad;
}

static void big_msm(unsigned lo_log, unsigned hi_log, unsigned cpu_log)
{
    size_t nmax = (size_t)1 << hi_log;
    if (lo_log < BIG_K_LOG) lo_log = BIG_K_LOG;
    double t0 = cz_mono_ms();
    cz_g1_affine *A, *B, *bases, *d_b = NULL;
    cz_scalar *sc, *d_s = NULL, *eq = NULL;
    cz_g1_affine cpu_ref, dev_at_cpu_log;
    bool have_dev_at_cpu_log = false;
    cz_errbuf e, *err = &e;
    cz_status st;
    if (!big_generate(nmax, &A, &B, &bases, &sc)) {
        fail_st("msm: host memory for the distinct bases", CZ_ERR_NOMEM, NULL);
        goto done;
    }
    char name[96];
    snprintf(name, sizeof name, "  generate 2^%u distinct bases + scalars (CPU)", hi_log);
    row(name, (cz_mono_ms() - t0) / 1e3, "s", "");

    if ((st = czc_enter(ctx, err)) != CZ_OK) {
        fail_st("msm: enter", st, err);
        goto done;
    }
    t0 = cz_mono_ms();
    CZC_TRY(cudaMalloc((void **)&d_b, nmax * sizeof *d_b));
    CZC_TRY(cudaMalloc((void **)&d_s, nmax * sizeof *d_s));
    if ((st = czc_upload(ctx, d_b, bases, nmax * sizeof *d_b, ctx->s_comp, pool, err)) != CZ_OK) goto out;
    if ((st = czc_upload(ctx, d_s, sc, nmax * sizeof *d_s, ctx->s_comp, pool, err)) != CZ_OK) goto out;
    CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
    snprintf(name, sizeof name, "  upload 2^%u bases + scalars", hi_log);
    row(name, (cz_mono_ms() - t0) / 1e3, "s", "");

    /* sizes lo..hi, then 2^22 in chunks of 2^20 (4 sorting passes) */
    for (unsigned k = lo_log; k <= hi_log + 1; k++) {
        unsigned lg = k <= hi_log ? k : 22;
        czc_msm_cfg cfg = { 0, k <= hi_log ? 0 : 20 };
        if (k > hi_log && hi_log < 22) break;
        size_t n = (size_t)1 << lg;
        cz_msm_plan pl;
        cz_d_msm_plan(&pl, n, cfg.window, cfg.chunk_log);
        cz_g1_jac got;
        double best = 1e30;
        for (int rep = 0; rep < (lg < 24 ? 3 : 1); rep++) {
            double t1 = cz_mono_ms();
            if ((st = czc_msm_g1(&got, d_b, d_s, n, &cfg, ctx->s_comp, err)) != CZ_OK) goto out;
            double dt = cz_mono_ms() - t1;
            if (dt < best) best = dt;
        }
        cz_g1_affine ga, ra;
        cz_g1_jac_to_affine(&ga, &got);
        double t2 = cz_mono_ms();
        cz_status rs = big_reference(&ra, sc, n, A, B);
        double tref = cz_mono_ms() - t2;
        uint64_t chunks = (n + pl.chunk - 1) / pl.chunk;
        snprintf(name, sizeof name, "check msm_g1 distinct n=2^%u c=%u chunks=%llu", lg, pl.c,
                 (unsigned long long)chunks);
        if (rs != CZ_OK) fail_st(name, rs, NULL);
        else row(name, best, "ms", memcmp(&ga, &ra, sizeof ga) ? "FAIL" : "ok");
        snprintf(name, sizeof name, "  time msm_g1 2^%u per point (chunk 2^%u)", lg,
                 (unsigned)__builtin_ctzll(pl.chunk));
        row(name, best * 1e6 / (double)n, "ns/point", "");
        snprintf(name, sizeof name, "  CPU reference (linearity) 2^%u", lg);
        row(name, tref, "ms", "");
        if (lg == cpu_log && k <= hi_log) {
            dev_at_cpu_log = ga;
            have_dev_at_cpu_log = true;
        }
    }
    /* 2^24 scalars all equal: every window's points in one bucket, the
     * bucket pieces' worst case (one thread per bucket would add 2^24
     * points in a row), against the same linearity reference */
    if (hi_log >= 24) {
        size_t n = (size_t)1 << 24;
        cz_fr f;
        cz_scalar v;
        rnd_fr(&f);
        cz_scalar_from_fr(&v, &f);
        if (!(eq = malloc(n * sizeof *eq))) {
            st = cz_err(err, CZ_ERR_NOMEM, "msm: host memory for the equal scalars");
            goto out;
        }
        for (size_t i = 0; i < n; i++) eq[i] = v;
        if ((st = czc_upload(ctx, d_s, eq, n * sizeof *d_s, ctx->s_comp, pool, err)) != CZ_OK) goto out;
        CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
        cz_msm_plan pl;
        cz_d_msm_plan(&pl, n, 0, 0);
        cz_g1_jac got;
        double t1 = cz_mono_ms();
        if ((st = czc_msm_g1(&got, d_b, d_s, n, NULL, ctx->s_comp, err)) != CZ_OK) goto out;
        double dt = cz_mono_ms() - t1;
        cz_g1_affine ga, ra;
        cz_g1_jac_to_affine(&ga, &got);
        cz_status rs = big_reference(&ra, eq, n, A, B);
        snprintf(name, sizeof name, "check msm_g1 distinct n=2^24 equal scalars c=%u pieces of 2^%u", pl.c,
                 pl.piece_log);
        if (rs != CZ_OK) fail_st(name, rs, NULL);
        else row(name, dt, "ms", memcmp(&ga, &ra, sizeof ga) ? "FAIL" : "ok");
    }
out:
    cudaFree(d_b);
    cudaFree(d_s);
    st = czc_leave(ctx, st, err);
    if (st != CZ_OK) fail_st("msm distinct bases", st, err);
    if (st == CZ_OK && cpu_log) {
        snprintf(name, sizeof name, "check msm_g1 n=2^%u GPU vs full CPU MSM", cpu_log);
        if (!have_dev_at_cpu_log) {
            fail_st(name, CZ_ERR_INVALID_ARG, NULL); /* size outside the run */
        } else {
            double t1 = cz_mono_ms();
            cz_g1_jac r;
            cz_status cs = cz_msm_g1(&r, bases, sc, (size_t)1 << cpu_log, pool, NULL);
            double dt = cz_mono_ms() - t1;
            cz_g1_jac_to_affine(&cpu_ref, &r);
            if (cs != CZ_OK) fail_st(name, cs, NULL);
            else row(name, dt, "ms(CPU)", memcmp(&cpu_ref, &dev_at_cpu_log, sizeof cpu_ref) ? "FAIL" : "ok");
        }
    }
done:
    free(A);
    free(B);
    free(bases);
    free(sc);
    free(eq);
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
    double t0 = cz_mono_ms();
    cz_status st = cz_pce_record(&c->pce, cz_mulchain_synth, &c->mc, NULL);
    if (st == CZ_OK) st = cz_groth16_setup(&c->params, c->pce, pool, NULL, &e);
    if (setup_ms) *setup_ms = cz_mono_ms() - t0;
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
    double t0 = cz_mono_ms();
    st = gpu ? cz_cuda_prove_start(&p, ctx, c->params, c->pce, &in, pool, bg, e)
             : cz_groth16_prove_start(&p, c->params, c->pce, &in, pool, bg, e);
    if (start_ms) *start_ms = cz_mono_ms() - t0;
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

/* Device memory must be flat: free memory sampled every 50 proofs over
 * nproofs small proofs (1 in 50 unsatisfied, so the error path is part of
 * it), after one warm-up proof (resident parameters, lazy module loads).
 * cudaMalloc hands out whole pages (2 MiB), so a leak of k bytes per
 * proof shows as soon as the leaked bytes fill a page: a 1 MiB threshold
 * over 300 proofs catches leaks of a few KiB per proof. */
#define DRIFT_MAX_MIB 1.0

static void check_leak(int nproofs)
{
    circuit c;
    if (circuit_init(&c, 1000, NULL)) return;
    size_t f0 = 0, f1 = 0, fmin = 0, tot = 0;
    uint8_t proof[192];
    cz_errbuf e;
    cz_status st = prove(&c, true, 0, proof, NULL, &e); /* warm: resident params */
    if (st == CZ_OK) st = cz_cuda_mem_info(ctx, &f0, &tot);
    fmin = f0;
    double t0 = cz_mono_ms();
    int ok = 0;
    for (int i = 0; i < nproofs && st == CZ_OK; i++) {
        st = prove(&c, true, i % 50 == 7, proof, NULL, &e); /* some unsatisfied: the error path too */
        if (i % 50 == 7) st = st == CZ_ERR_UNSATISFIED ? CZ_OK : CZ_ERR_INTERNAL;
        else ok += st == CZ_OK;
        if (st == CZ_OK && i % 50 == 49) {
            size_t f;
            st = cz_cuda_mem_info(ctx, &f, &tot);
            if (f < fmin) fmin = f;
        }
    }
    double t1 = cz_mono_ms();
    if (st == CZ_OK) st = cz_cuda_mem_info(ctx, &f1, &tot);
    if (f1 < fmin) fmin = f1;
    if (st != CZ_OK) {
        fail_st("leak check", st, &e);
    } else {
        char name[64];
        row("device free before (MiB)", (double)f0 / 1048576.0, "MiB", "");
        snprintf(name, sizeof name, "device free after %d proofs (MiB)", nproofs);
        row(name, (double)f1 / 1048576.0, "MiB", "");
        double drift = ((double)f0 - (double)f1) / 1048576.0, worst = ((double)f0 - (double)fmin) / 1048576.0;
        row("device memory drift", drift, "MiB", drift < DRIFT_MAX_MIB ? "ok" : "FAIL");
        row("  largest drift of the samples", worst, "MiB", "");
        row("small proofs/s (m=2^10, with finish)", ok / ((t1 - t0) / 1e3), "proof/s", "");
    }
    cz_cuda_params_release(ctx);
    circuit_free(&c);
}

/* The single-kernel API (temporary domains, staging, MSM scratch) must be
 * flat too: iters rounds of NTT (a size without resident tables), quotient
 * and MSM, free memory compared after a warm-up round. */
static void check_leak_api(int iters)
{
    const unsigned lg = 12;
    size_t n = (size_t)1 << lg, nm = 1000;
    cz_fr *x[3];
    for (int k = 0; k < 3; k++) x[k] = malloc(n * sizeof(cz_fr));
    cz_g1_affine *b = make_points(nm);
    cz_scalar *s = calloc(nm, sizeof *s);
    for (size_t i = 0; i < nm; i++) s[i].l[0] = rnd(), s[i].l[1] = rnd();
    size_t f0 = 0, f1 = 0, tot;
    cz_errbuf e;
    cz_status st = CZ_OK;
    for (int it = 0; it <= iters && st == CZ_OK; it++) {
        cz_g1_jac r;
        for (int k = 0; k < 3; k++) fill_fr(x[k], n, 77 + (uint64_t)k);
        st = cz_cuda_ntt(ctx, x[0], lg, CZ_CUDA_NTT_COSET_INV, &e);
        if (st == CZ_OK) st = cz_cuda_quotient_h(ctx, x[0], x[1], x[2], lg, &e);
        if (st == CZ_OK) st = cz_cuda_msm_g1(ctx, &r, b, s, nm, 0, &e);
        if (st == CZ_OK && it == 0) st = cz_cuda_mem_info(ctx, &f0, &tot);
    }
    if (st == CZ_OK) st = cz_cuda_mem_info(ctx, &f1, &tot);
    char name[80];
    snprintf(name, sizeof name, "device memory drift, %d ntt+quotient+msm calls", iters);
    if (st != CZ_OK) fail_st(name, st, &e);
    else {
        double drift = ((double)f0 - (double)f1) / 1048576.0;
        row(name, drift, "MiB", drift < DRIFT_MAX_MIB ? "ok" : "FAIL");
    }
    for (int k = 0; k < 3; k++) free(x[k]);
    free(b);
    free(s);
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
        double t0 = cz_mono_ms();
        if ((st = czc_ntt(d_x[0], &dom, CZC_NTT_FWD, ctx->s_comp, err)) != CZ_OK) goto out;
        CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
        t_ntt = cz_mono_ms() - t0;
        t0 = cz_mono_ms();
        if ((st = czc_quotient(d_x[0], d_x[1], d_x[2], &dom, ctx->s_comp, err)) != CZ_OK) goto out;
        CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
        t_q = cz_mono_ms() - t0;
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
        snprintf(name, sizeof name, "time quotient (6 NTTs) 2^%u", lg);
        row(name, t_q, "ms", "");
    }
}

static double T0_ms;
static double elapsed_s(void) { return (cz_mono_ms() - T0_ms) / 1e3; }

typedef struct {
    bool quick, plan;
    int selftest;
    int msm_max, msm_min, cpu_msm, ntt_max, ntt_check_max, prove_log, leak, dev, threads;
} options;

static void print_plan(const options *o)
{
    printf("cuzk_cuda_check plan (%s):\n", o->quick ? "quick" : "full");
    printf("  intrinsics  __umul64hi/__popcll/__brevll vs host emulations, 2^24 value pairs\n");
    printf("  mul32       32-bit carry-chain Montgomery mul (PTX) vs 64-bit CIOS, 2^22 pairs; both timed\n");
    printf("  small       ntt 4 kinds 2^0..2^20, quotient 2^1..2^20, msm n=1..2^16 x 4 mixes, windows 1..20\n");
    printf("  msm         2^%d distinct bases (A[i mod 2^16] + B[i div 2^16]), checked+timed 2^%d..2^%d\n",
           o->msm_max, o->msm_min, o->msm_max);
    printf("              (device chunk 2^24: 2^25 = 2 chunks, 2^26 = 4), 2^22 in chunks of 2^20,\n");
    printf("              2^24 with all scalars equal (one bucket per window);\n");
    printf("              CPU reference by linearity (n Fr additions + MSMs of 2^16 and n/2^16 points);\n");
    if (o->cpu_msm) printf("              full CPU MSM at 2^%d vs the device\n", o->cpu_msm);
    printf("  ntt         ntt fwd and quotient 2^%d vs the CPU\n", o->ntt_check_max);
    printf("  proofs      mulchain n_mul=100, 5000, 2^%d-8 GPU == CPU bytes, verify; unsatisfied refused\n",
           o->prove_log);
    printf("  memory      drift < %.0f MiB over %d proofs (sampled every 50) and 100 API calls\n", DRIFT_MAX_MIB,
           o->leak);
    printf("  budget      CZ_ERR_BUDGET refusal, proof after it\n");
    printf("  timings     ntt fwd and quotient 2^20..2^%d (device-resident)\n", o->ntt_max);
    if (deadline_s > 0) printf("  deadline    %.0f s: correctness stages not started by then count as failures\n",
                               deadline_s);
}

static int usage(const char *argv0, const char *bad)
{
    fprintf(stderr, "%s: bad option or value '%s'\n", argv0, bad);
    fprintf(stderr,
            "usage: %s [--quick] [--plan] [--msm-max L] [--msm-min L] [--cpu-msm L] [--ntt-max L] "
            "[--ntt-check-max L] [--prove-log L] [--leak-proofs N] [--device D] [--threads T] [--deadline S] "
            "[--host-selftest L]\n",
            argv0);
    return 2;
}

int main(int argc, char **argv)
{
    options o = { false, false, 0, 26, 20, 24, 27, 27, 18, 300, 0, 0 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int *iv = NULL;
        if (!strcmp(a, "--quick")) o.quick = true;
        else if (!strcmp(a, "--plan")) o.plan = true;
        else if (!strcmp(a, "--msm-max")) iv = &o.msm_max;
        else if (!strcmp(a, "--msm-min")) iv = &o.msm_min;
        else if (!strcmp(a, "--cpu-msm")) iv = &o.cpu_msm;
        else if (!strcmp(a, "--ntt-max")) iv = &o.ntt_max;
        else if (!strcmp(a, "--ntt-check-max")) iv = &o.ntt_check_max;
        else if (!strcmp(a, "--prove-log")) iv = &o.prove_log;
        else if (!strcmp(a, "--leak-proofs")) iv = &o.leak;
        else if (!strcmp(a, "--device")) iv = &o.dev;
        else if (!strcmp(a, "--threads")) iv = &o.threads;
        else if (!strcmp(a, "--host-selftest")) iv = &o.selftest;
        else if (!strcmp(a, "--deadline")) {
            if (i + 1 >= argc) return usage(argv[0], a);
            char *end;
            deadline_s = strtod(argv[++i], &end);
            if (*end || deadline_s < 0) return usage(argv[0], argv[i]);
            continue;
        } else return usage(argv[0], a);
        if (iv) {
            if (i + 1 >= argc) return usage(argv[0], a);
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 100000) return usage(argv[0], argv[i]);
            *iv = (int)v;
        }
    }
    if (o.msm_max > 28 || o.msm_max < BIG_K_LOG || o.ntt_max > CZ_NTT_MAX_LOG_N ||
        o.ntt_check_max > CZ_NTT_MAX_LOG_N || (o.cpu_msm && o.cpu_msm > o.msm_max)) {
        fprintf(stderr, "%s: sizes out of range (msm 2^%d..2^28, ntt <= 2^%d, --cpu-msm <= --msm-max)\n", argv[0],
                BIG_K_LOG, CZ_NTT_MAX_LOG_N);
        return 2;
    }
    if (o.quick) {
        o.msm_max = o.msm_max < 22 ? o.msm_max : 22;
        o.cpu_msm = o.cpu_msm < 20 ? o.cpu_msm : 20;
        o.ntt_max = o.ntt_max < 22 ? o.ntt_max : 22;
        o.ntt_check_max = o.ntt_check_max < 22 ? o.ntt_check_max : 22;
        o.prove_log = o.prove_log < 14 ? o.prove_log : 14;
        o.leak = o.leak < 50 ? o.leak : 50;
    }
    if (o.msm_min > o.msm_max) o.msm_min = o.msm_max;
    if (o.plan) {
        print_plan(&o);
        return 0;
    }
    if (o.selftest) { /* no device needed */
        if (o.selftest < BIG_K_LOG + 1 || o.selftest > 28) {
            fprintf(stderr, "%s: --host-selftest %d: size must be 2^%d..2^28\n", argv[0], o.selftest, BIG_K_LOG + 1);
            return 2;
        }
        if (cz_pool_create(&pool, (unsigned)o.threads, "chk") != CZ_OK) return 3;
        int bad = host_selftest((unsigned)o.selftest);
        cz_pool_destroy(pool);
        return bad ? 1 : 0;
    }
    cz_errbuf e;
    cz_cuda_opts co = { o.dev, 0, 0 };
    cz_status st = cz_cuda_ctx_create(&ctx, &co, &e);
    if (st != CZ_OK) {
        printf("cuzk_cuda_check: %s\n", e.msg);
        return 3;
    }
    if (cz_pool_create(&pool, (unsigned)o.threads, "chk") != CZ_OK || cz_pool_create(&bg, 1, "chkbg") != CZ_OK) {
        printf("cuzk_cuda_check: cannot create thread pools (%d threads)\n", o.threads);
        return 3;
    }
    size_t fr, tot;
    if (cz_cuda_mem_info(ctx, &fr, &tot) == CZ_OK)
        printf("device: %s, %.1f GiB free of %.1f GiB; CPU pool %u threads\n", cz_cuda_ctx_name(ctx),
               (double)fr / 1073741824.0, (double)tot / 1073741824.0, cz_pool_size(pool));
    print_plan(&o);
    printf("%-44s %14s %-10s %s\n", "check", "value", "unit", "status");
    T0_ms = cz_mono_ms();

    if (stage("intrinsics")) {
        uint64_t bad = 0;
        cz_errbuf ie, *err = &ie;
        if ((st = czc_enter(ctx, err)) == CZ_OK) {
            st = czc_check_intrin((uint64_t)1 << 24, 0x5eed, &bad, ctx->s_comp, err);
            st = czc_leave(ctx, st, err);
        }
        if (st != CZ_OK) fail_st("check intrinsics vs host emulation", st, err);
        else row("check intrinsics vs host emulation", (double)bad, "mismatch", bad ? "FAIL" : "ok");
    }
    if (stage("mul32")) {
        /* evidence for the CZ_CUDA_MUL32 switch (dev_mul32.h): not the
         * production path, so a mismatch is reported, not counted */
        uint64_t bad = 0;
        double ms[2] = { 0, 0 };
        const uint64_t nthr = (uint64_t)1 << 20;
        const unsigned iters = 256;
        cz_errbuf ie, *err = &ie;
        if ((st = czc_enter(ctx, err)) == CZ_OK) {
            st = czc_check_mul32((uint64_t)1 << 22, 0x3232, &bad, ctx->s_comp, err);
            for (int v = 0; v < 2 && st == CZ_OK; v++) st = czc_bench_mul(v, nthr, iters, &ms[v], ctx->s_comp, err);
            st = czc_leave(ctx, st, err);
        }
        if (st != CZ_OK) fail_st("mul32 check", st, err);
        else {
            double muls = (double)nthr * iters;
            row("check mul32 (PTX) vs 64-bit CIOS, 2^22 Fp+Fr", (double)bad, "mismatch",
                bad ? "MISMATCH (keep CZ_CUDA_MUL32 off)" : "ok");
            row("  Fp mul 64-bit CIOS", muls / (ms[0] * 1e6), "Gmul/s", "");
            row("  Fp mul 32-bit carry chains", muls / (ms[1] * 1e6), "Gmul/s", "");
            row("  speedup 32-bit / 64-bit", ms[0] / ms[1], "x", "");
        }
    }
    if (stage("small")) {
        unsigned nl[] = { 0, 1, 2, 5, 10, 16, 20 };
        for (size_t i = 0; i < sizeof nl / sizeof *nl; i++) check_ntt(nl[i], 0xf);
        unsigned ql[] = { 1, 10, 16, 20 };
        for (size_t i = 0; i < sizeof ql / sizeof *ql; i++) check_quotient(ql[i]);
        size_t mn[] = { 1, 2, 7, 100, 1000, 1 << 14, 1 << 16 };
        for (size_t i = 0; i < sizeof mn / sizeof *mn; i++)
            for (int mix = 0; mix < 4; mix++) check_msm(mn[i], mix, 0);
        unsigned cs[] = { 1, 5, 11, 16, 20 };
        for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) check_msm(5000, 0, cs[i]);
    }
    if (stage("msm")) big_msm((unsigned)o.msm_min, (unsigned)o.msm_max, (unsigned)o.cpu_msm);
    if (stage("ntt")) {
        if (o.ntt_check_max > 20) {
            check_ntt((unsigned)o.ntt_check_max, 1);
            check_quotient((unsigned)o.ntt_check_max);
        }
    }
    if (stage("proofs")) {
        check_proof(100, false);
        check_proof(5000, false);
        check_proof(((size_t)1 << o.prove_log) - 8, true);
    }
    if (stage("memory")) {
        check_leak(o.leak);
        check_leak_api(100);
    }
    if (stage("budget")) check_budget();
    printf("== timings (t = %.1f s)\n", elapsed_s());
    if (deadline_s > 0 && elapsed_s() > deadline_s) printf("  timings skipped: past the %.0f s deadline\n", deadline_s);
    else time_ntt(20, (unsigned)o.ntt_max);
    row("total check time", elapsed_s(), "s", "");
    printf("cuzk_cuda_check: %s (%d failure%s)\n", failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
    cz_pool_destroy(pool);
    cz_pool_destroy(bg);
    cz_cuda_ctx_free(ctx);
    return failures ? 1 : 0;
}
