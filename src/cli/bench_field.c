/*
 * `cuzk bench field`: ns/op of the field, group and pairing primitives, on
 * every field back-end this CPU supports (portable, then MULX/ADX).
 *
 * Options: --json (JSON report), --samples N (median of N, default 7),
 * --target-ms T (time per sample, default 20), --backend portable|adx|all,
 * --only S (run only the cases whose name contains S, e.g. "fp_"),
 * --cpu-time (time with the thread's CPU clock instead of the wall clock:
 * on a shared, overloaded machine this leaves out the time the thread
 * spent descheduled, which otherwise inflates even the median).
 *
 * Each operation runs as a dependent chain (x = x·y, P = P + Q, ...), so
 * the figure is latency per operation, the number that bounds the serial
 * parts of a prover (inversions, Miller loop, bucket sums). Two cases
 * measure throughput instead, per product: "fp_mul_4chains" (four
 * independent chains of the back-end's product, as a batch addition
 * runs them) and "fp_mul_x16_hybrid" (fourteen chains, eight on AVX2 + FMA
 * lanes and six on MULX in one instruction stream, ff/fp_x4.h; where the
 * CPU has AVX2, FMA and ADX, once, after the back-ends) — the two that
 * decide between the MSM's scalar and AVX2 flushes; "fp_sqr_x16_hybrid"
 * is the latter's squaring twin (fourteen chains x = x²).
 */
#include "bench_util.h"
#include "opts.h"
#include "commands.h"
#include "cuzk/curve.h"
#include "cuzk/field.h"
#include "cuzk/pairing.h"
#include "ff/fp_x4.h"
#include "ff/fr_x4.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Everything a benchmark body may touch; kept in one struct so the bodies
 * have one signature and the compiler cannot drop the chains. */
typedef struct {
    cz_fp fa, fb;
    cz_fr ra, rb;
    cz_fp2 ka, kb;
    cz_g1_jac g1a, g1b;
    cz_g1_affine g1q;
    cz_g2_jac g2a, g2b;
    cz_g2_affine g2q;
    cz_g1_affine pp;
    cz_g2_affine qq;
    cz_fp12 f;
    cz_fp qa[4], qb[4];  /* four independent chains */
    cz__fp_x16 xa, xb;   /* 16 chains: lanes and MULX */
    cz_fr qra[4], qrb[4]; /* four independent Fr chains */
    cz__fr_x16 ya, yb;   /* 16 Fr chains: lanes and MULX */
} bench_state;

static void b_fp_mul(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_fp_mul(&s->fa, &s->fa, &s->fb);
}
/* One step = four (sixteen) independent products: the time per step / 4
 * (/ 16) is per product (n is large: the rounding up does not show). */
static void b_fp_mul_4chains(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i += 4) {
        cz_fp_mul(&s->qa[0], &s->qa[0], &s->qb[0]);
        cz_fp_mul(&s->qa[1], &s->qa[1], &s->qb[1]);
        cz_fp_mul(&s->qa[2], &s->qa[2], &s->qb[2]);
        cz_fp_mul(&s->qa[3], &s->qa[3], &s->qb[3]);
    }
}
static void b_fp_mul_x16_hybrid(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i += CZ_FP_X16_N) cz__fp_x16_mul(&s->xa, &s->xa, &s->xb);
}
static void b_fp_sqr_x16_hybrid(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i += CZ_FP_X16_N) cz__fp_x16_sqr(&s->xa, &s->xa);
}
static void b_fr_mul_4chains(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i += 4) {
        cz_fr_mul(&s->qra[0], &s->qra[0], &s->qrb[0]);
        cz_fr_mul(&s->qra[1], &s->qra[1], &s->qrb[1]);
        cz_fr_mul(&s->qra[2], &s->qra[2], &s->qrb[2]);
        cz_fr_mul(&s->qra[3], &s->qra[3], &s->qrb[3]);
    }
}
static void b_fr_mul_x16_hybrid(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i += CZ_FR_X16_N) cz__fr_x16_mul(&s->ya, &s->ya, &s->yb);
}
static void b_fp_sqr(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_fp_sqr(&s->fa, &s->fa);
}
static void b_fp_add(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_fp_add(&s->fa, &s->fa, &s->fb);
}
static void b_fp_inv(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) {
        cz_fp_inv(&s->fa, &s->fa);
        cz_fp_add(&s->fa, &s->fa, &s->fb); /* never reach 0 or cycle ±1 */
    }
}
static void b_fp_inv_var(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) {
        cz_fp_inv_var(&s->fa, &s->fa);
        cz_fp_add(&s->fa, &s->fa, &s->fb);
    }
}
static void b_fp_sqrt(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) {
        cz_fp t;
        cz_fp_sqr(&t, &s->fa);
        (void)cz_fp_sqrt(&s->fa, &t);
        cz_fp_add(&s->fa, &s->fa, &s->fb);
    }
}
static void b_fr_mul(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_fr_mul(&s->ra, &s->ra, &s->rb);
}
static void b_fr_sqr(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_fr_sqr(&s->ra, &s->ra);
}
static void b_fr_inv(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) {
        cz_fr_inv(&s->ra, &s->ra);
        cz_fr_add(&s->ra, &s->ra, &s->rb);
    }
}
static void b_fr_inv_var(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) {
        cz_fr_inv_var(&s->ra, &s->ra);
        cz_fr_add(&s->ra, &s->ra, &s->rb);
    }
}
static void b_fp2_mul(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_fp2_mul(&s->ka, &s->ka, &s->kb);
}
static void b_fp2_sqr(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_fp2_sqr(&s->ka, &s->ka);
}
static void b_fp2_inv(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) {
        cz_fp2_inv(&s->ka, &s->ka);
        cz_fp2_add(&s->ka, &s->ka, &s->kb);
    }
}
static void b_g1_add(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_g1_jac_add(&s->g1a, &s->g1a, &s->g1b);
}
static void b_g1_add_affine(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_g1_jac_add_affine(&s->g1a, &s->g1a, &s->g1q);
}
static void b_g1_dbl(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_g1_jac_dbl(&s->g1a, &s->g1a);
}
static void b_g2_add(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_g2_jac_add(&s->g2a, &s->g2a, &s->g2b);
}
static void b_g2_add_affine(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_g2_jac_add_affine(&s->g2a, &s->g2a, &s->g2q);
}
static void b_g2_dbl(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_g2_jac_dbl(&s->g2a, &s->g2a);
}
static void b_miller(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_miller_loop(&s->f, &s->pp, &s->qq);
}
static void b_final_exp(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_final_exp(&s->f, &s->f);
}
static void b_pairing(void *arg, size_t n)
{
    bench_state *s = arg;
    for (size_t i = 0; i < n; i++) cz_pairing(&s->f, &s->pp, &s->qq);
}

typedef struct {
    const char *name;
    void (*fn)(void *, size_t);
    bool lanes; /* the AVX2 + FMA lanes: no back-end of its own, run once */
} bench_case;

static const bench_case CASES[] = {
    {"fp_mul", b_fp_mul, false},
    {"fp_mul_4chains", b_fp_mul_4chains, false},
    {"fp_mul_x16_hybrid", b_fp_mul_x16_hybrid, true},
    {"fp_sqr_x16_hybrid", b_fp_sqr_x16_hybrid, true},
    {"fp_sqr", b_fp_sqr, false},
    {"fp_add", b_fp_add, false},
    {"fp_inv", b_fp_inv, false},
    {"fp_inv_var", b_fp_inv_var, false},
    {"fp_sqrt", b_fp_sqrt, false},
    {"fr_mul", b_fr_mul, false},
    {"fr_mul_4chains", b_fr_mul_4chains, false},
    {"fr_mul_x16_hybrid", b_fr_mul_x16_hybrid, true},
    {"fr_sqr", b_fr_sqr, false},
    {"fr_inv", b_fr_inv, false},
    {"fr_inv_var", b_fr_inv_var, false},
    {"fp2_mul", b_fp2_mul, false},
    {"fp2_sqr", b_fp2_sqr, false},
    {"fp2_inv", b_fp2_inv, false},
    {"g1_add_jac", b_g1_add, false},
    {"g1_add_mixed", b_g1_add_affine, false},
    {"g1_dbl", b_g1_dbl, false},
    {"g2_add_jac", b_g2_add, false},
    {"g2_add_mixed", b_g2_add_affine, false},
    {"g2_dbl", b_g2_dbl, false},
    {"miller_loop", b_miller, false},
    {"final_exp", b_final_exp, false},
    {"pairing", b_pairing, false},
};

static void setup(bench_state *s)
{
    memset(s, 0, sizeof *s);
    /* fixed, arbitrary nonzero values: benchmarks must be reproducible */
    cz_fp_from_u64(&s->fa, 0x1234567890abcdefULL);
    cz_fp_sqr(&s->fa, &s->fa);
    cz_fp_sqr(&s->fa, &s->fa);
    cz_fp_sqr(&s->fa, &s->fa);
    cz_fp_from_u64(&s->fb, 0xfedcba0987654321ULL);
    cz_fp_sqr(&s->fb, &s->fb);
    cz_fp_sqr(&s->fb, &s->fb);
    cz_fr_from_u64(&s->ra, 0x1234567890abcdefULL);
    cz_fr_sqr(&s->ra, &s->ra);
    cz_fr_sqr(&s->ra, &s->ra);
    cz_fr_from_u64(&s->rb, 0xfedcba0987654321ULL);
    cz_fr_sqr(&s->rb, &s->rb);
    s->ka.c0 = s->fa;
    s->ka.c1 = s->fb;
    s->kb.c0 = s->fb;
    s->kb.c1 = s->fa;
    /* group elements: small multiples of the generators */
    cz_g1_generator_jac(&s->g1a);
    cz_g1_jac_dbl(&s->g1b, &s->g1a);
    cz_g1_jac_add(&s->g1b, &s->g1b, &s->g1a); /* 3G */
    cz_g1_jac_to_affine(&s->g1q, &s->g1b);
    cz_g2_generator_jac(&s->g2a);
    cz_g2_jac_dbl(&s->g2b, &s->g2a);
    cz_g2_jac_add(&s->g2b, &s->g2b, &s->g2a);
    cz_g2_jac_to_affine(&s->g2q, &s->g2b);
    cz_g1_generator(&s->pp);
    cz_g2_generator(&s->qq);
    cz_miller_loop(&s->f, &s->pp, &s->qq);
    for (int l = 0; l < 4; l++) {
        s->qa[l] = l & 1 ? s->fb : s->fa;
        for (int k = 0; k <= l; k++) cz_fp_sqr(&s->qa[l], &s->qa[l]);
        s->qb[l] = l & 1 ? s->fa : s->fb;
    }
    for (int l = 0; l < 4; l++) {
        s->qra[l] = l & 1 ? s->rb : s->ra;
        for (int k = 0; k <= l; k++) cz_fr_sqr(&s->qra[l], &s->qra[l]);
        s->qrb[l] = l & 1 ? s->ra : s->rb;
    }
    if (cz__fr_x4_supported())
        for (unsigned i = 0; i < CZ_FR_X16_N; i++) {
            cz__fr_x16_set_a(&s->ya, i, &s->qra[i % 4]);
            cz__fr_x16_set_b(&s->yb, i, &s->qrb[i % 4]);
        }
    if (cz__fp_x4_supported())
        for (unsigned i = 0; i < CZ_FP_X16_N; i++) { /* copies of the four chains */
            cz__fp_x16_set(&s->xa, i, &s->qa[i % 4]);
            cz__fp_x16_set(&s->xb, i, &s->qb[i % 4]);
        }
}

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* cz_bench_median_ns with the thread CPU clock. */
static double median_cpu_ns(void (*fn)(void *, size_t), void *arg, size_t iters, int samples)
{
    double t[64];
    if (samples > 64) samples = 64;
    fn(arg, iters < 16 ? iters : 16);
    for (int i = 0; i < samples; i++) {
        double t0 = thread_cpu_ns();
        fn(arg, iters);
        t[i] = (thread_cpu_ns() - t0) / (double)iters;
    }
    qsort(t, (size_t)samples, sizeof t[0], cmp_double);
    return samples % 2 ? t[samples / 2] : 0.5 * (t[samples / 2 - 1] + t[samples / 2]);
}

/* Iterations so that one sample takes about target_ns. */
static size_t calibrate(void (*fn)(void *, size_t), void *arg, double target_ns)
{
    size_t iters = 1;
    for (;;) {
        double t0 = cz_now_ns();
        fn(arg, iters);
        double dt = cz_now_ns() - t0;
        if (dt >= target_ns / 8 || iters >= ((size_t)1 << 30)) {
            double per = dt / (double)iters;
            size_t want = per > 0 ? (size_t)(target_ns / per) : iters;
            return want ? want : 1;
        }
        iters *= 4;
    }
}

static const cz_opt field_opts[] = {
    CZ_STR("--backend", "B", "portable | adx | all (default all)"),
    CZ_STR("--only", "SUBSTR", "only the cases whose name contains SUBSTR"),
    CZ_NUM("--samples", "S", 1, 64, "samples per case (default 7)"),
    CZ_NUM("--target-ms", "MS", 1, 100000, "time per sample (default 20)"),
    CZ_FLAG("--cpu-time", "thread CPU time instead of wall time"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd field_cmd = {
    .name = "cuzk bench field",
    .synopsis = "[--backend portable|adx|all] [--only NAME] [--samples S] [--target-ms MS] [--cpu-time] [--json]",
    .opts = field_opts,
};

int cz_bench_field(int argc, char **argv)
{
    cz_args oa;
    int prc = cz_opts_parse(&oa, &field_cmd, argc, argv);
    if (prc >= 0) return prc;
    bool json = cz_opt_flag(&oa, "--json");
    int samples = (int)cz_opt_num(&oa, "--samples", 7);
    double target_ns = 1e6 * (double)cz_opt_num(&oa, "--target-ms", 20);
    const char *which = cz_opt_str(&oa, "--backend", "all");
    const char *only = cz_opt_str(&oa, "--only", "");
    bool cpu_time = cz_opt_flag(&oa, "--cpu-time");
    if (samples < 1) samples = 1;
    if (samples > 64) samples = 64;

    cz_ff_backend backends[2];
    int nb = 0;
    if (!strcmp(which, "all") || !strcmp(which, "portable")) backends[nb++] = CZ_FF_PORTABLE;
    if ((!strcmp(which, "all") || !strcmp(which, "adx")) && cz_ff_adx_supported())
        backends[nb++] = CZ_FF_ADX;
    if (nb == 0) {
        fprintf(stderr, "cuzk bench field: back-end '%s' unknown or not supported here "
                        "(portable | adx | all)\n", which);
        return 2;
    }

    cz_ff_backend saved = cz_ff_get_backend();
    cz_bench_report *rep = cz_bench_report_new("field", json);
    bench_state s;
    for (int bi = 0; bi < nb; bi++) {
        if (cz_ff_set_backend(backends[bi]) != CZ_OK) continue;
        const char *bname = cz_ff_backend_name(backends[bi]);
        for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
            if (*only && !strstr(CASES[c].name, only)) continue;
            if (CASES[c].lanes && (bi != nb - 1 || !cz__fp_x4_supported())) continue;
            setup(&s);
            size_t iters = calibrate(CASES[c].fn, &s, target_ns);
            double ns = cpu_time ? median_cpu_ns(CASES[c].fn, &s, iters, samples)
                                 : cz_bench_median_ns(CASES[c].fn, &s, iters, samples);
            char name[96], extra[128];
            const char *bn = CASES[c].lanes ? "avx2" : bname;
            snprintf(name, sizeof name, "%s/%s", CASES[c].name, bn);
            snprintf(extra, sizeof extra,
                     "\"op\":\"%s\",\"backend\":\"%s\",\"samples\":%d,\"clock\":\"%s\"",
                     CASES[c].name, bn, samples, cpu_time ? "thread-cpu" : "wall");
            cz_bench_report_add(rep, name, ns, "ns/op", extra);
        }
    }
    if (cz_ff_set_backend(saved) != CZ_OK) fprintf(stderr, "warning: could not restore back-end\n");
    return cz_bench_report_finish(rep);
}
