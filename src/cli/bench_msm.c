/*
 * cuzk bench msm --group g1|g2 --log-n K --threads T [--json]
 *                [--window C] [--buckets auto|xyzz|affine] [--samples S]
 *                [--zeros PCT] [--ones PCT] [--no-simd]
 *
 * Times one MSM of 2^K random bases (distinct multiples of the generator,
 * made by a running sum and batch normalisation) and random canonical Fr
 * scalars (optionally PCT% zeros / ones, the PoRep shape), and reports ms,
 * ns per point and the ratio to the arithmetic floor:
 *     floor_ratio = time / (n × one XYZZ mixed addition)
 * with the mixed-addition cost measured in the same run (the bucket
 * operation of Pippenger: a plain sum of n points would cost ratio 1).
 * Pippenger needs about 256/c bucket additions per point, so the ratio is
 * its efficiency: below 1 means fewer than one full mixed addition per point.
 * Also reported: the process's CPU time (user + system, all threads) per
 * MSM, which on a shared machine varies far less than the wall time.
 *
 * --sweep W checks the window planner: it times the automatic plan and
 * every forced window within W bits of the planner's choice, one MSM of
 * each per round for --samples rounds, and prints each median and the
 * automatic plan's time over the best one's (a printout, not a test:
 * timings on a shared machine are too noisy to assert on). --points N
 * times N points instead of 2^K (e.g. a prover's merged H + L MSM).
 *
 * --tables T builds a table set of T tables of ceil(256/T) bits for the
 * bases (cz_msm_gX_tables_build, on the same threads) and times the table
 * MSM beside the plain one, one of each per round (interleaved, the order
 * alternating), for --samples rounds: the build time, the set's bytes,
 * both medians (wall and process CPU) and plain / tables.
 *
 * --vs-scalar times the MSM with its SIMD lanes (those CUZK_MSM_LANES
 * picks) and without (--no-simd's scalar flush) in the same way, one of
 * each per round, and prints both medians and the median over the rounds
 * of the pair's CPU-time ratio: on a machine whose speed drifts, the
 * ratio of two runs seconds apart is steadier than either figure.
 */
#include "bench_util.h"
#include "opts.h"
#include "commands.h"
#include "cuzk/msm.h"
#include "msm/msm_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
    /* splitmix64: deterministic inputs, run to run */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* user + system time of the whole process (every thread), in ms: on a
 * shared machine the wall time of a parallel call depends on what else
 * runs, its CPU time much less. */
static double process_cpu_ms(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static void rand_scalars(cz_scalar *s, size_t n, int zeros, int ones)
{
    for (size_t i = 0; i < n; i++) {
        int k = (int)(rng() % 100);
        memset(&s[i], 0, sizeof s[i]);
        if (k < zeros) continue;
        if (k < zeros + ones) {
            s[i].l[0] = 1;
            continue;
        }
        /* canonical Fr: 255 random bits, rejected until < r */
        do {
            for (int l = 0; l < 4; l++) s[i].l[l] = rng();
            s[i].l[3] &= 0x7fffffffffffffffULL;
        } while (s[i].l[3] > CZ_FR_MODULUS[3] ||
                 (s[i].l[3] == CZ_FR_MODULUS[3] && s[i].l[2] >= CZ_FR_MODULUS[2]));
    }
}

static int cmp_ms(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double median_ms(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_ms);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* cs[0] = 0 (the automatic plan), then every window from c - width to
 * c + width within [1, CZ_MSM_MAX_WINDOW]; returns the count. */
static int sweep_windows(unsigned *cs, unsigned c, int width)
{
    int nc = 0;
    cs[nc++] = 0;
    for (int w = (int)c - width; w <= (int)c + width; w++)
        if (w >= 1 && w <= CZ_MSM_MAX_WINDOW) cs[nc++] = (unsigned)w;
    return nc;
}

#define BENCH_GROUP(G)                                                                        \
static void G##_make_bases(cz_##G##_affine *b, size_t n)                                       \
{                                                                                              \
    enum { CH = 4096 };                                                                        \
    cz_##G##_jac g, p, *tmp = malloc(CH * sizeof *tmp);                                        \
    cz_##G##_affine q;                                                                         \
    uint64_t k = rng() | 1;                                                                    \
    cz_##G##_generator_jac(&g);                                                                \
    cz_##G##_jac_mul_var(&p, &g, &k, 1);                                                       \
    cz_##G##_jac_to_affine(&q, &p);                                                            \
    for (size_t i = 0; i < n; i += CH) {                                                       \
        size_t m = n - i < CH ? n - i : CH;                                                    \
        for (size_t j = 0; j < m; j++) {                                                       \
            tmp[j] = p;                                                                        \
            cz_##G##_jac_add_affine(&p, &p, &q);                                               \
        }                                                                                      \
        cz_##G##_batch_to_affine(b + i, tmp, m);                                               \
    }                                                                                          \
    free(tmp);                                                                                 \
}                                                                                              \
typedef struct {                                                                               \
    const cz_##G##_affine *b;                                                                  \
    size_t n;                                                                                  \
    cz_##G##_xyzz acc;                                                                         \
} G##_madd_arg;                                                                                \
static void G##_madd_run(void *arg, size_t iters)                                              \
{                                                                                              \
    G##_madd_arg *a = arg;                                                                     \
    for (size_t i = 0; i < iters; i++)                                                         \
        cz_##G##_xyzz_add_affine_var(&a->acc, &a->acc, &a->b[i % a->n]);                       \
}                                                                                              \
typedef struct {                                                                               \
    const cz_##G##_affine *b;                                                                  \
    const cz_scalar *s;                                                                        \
    size_t n;                                                                                  \
    cz_pool *pool;                                                                             \
    cz_msm_opts *o;                                                                            \
    int rc;                                                                                    \
} G##_msm_arg;                                                                                 \
static void G##_msm_run(void *arg, size_t iters)                                               \
{                                                                                              \
    G##_msm_arg *a = arg;                                                                      \
    for (size_t i = 0; i < iters; i++) {                                                       \
        cz_##G##_jac r;                                                                        \
        if (cz_msm_##G(&r, a->b, a->s, a->n, a->pool, a->o) != CZ_OK) a->rc = 1;               \
    }                                                                                          \
}                                                                                              \
static int G##_bench(size_t n, int zeros, int ones, cz_pool *pool, cz_msm_opts *o,          \
                     int samples, double *ms, double *cpu_ms, double *madd_ns)                 \
{                                                                                              \
    cz_##G##_affine *b = malloc(n * sizeof *b);                                                \
    cz_scalar *s = malloc(n * sizeof *s);                                                      \
    int rc = 1;                                                                                \
    if (b && s) {                                                                              \
        G##_make_bases(b, n);                                                                  \
        rand_scalars(s, n, zeros, ones);                                                       \
        G##_madd_arg ma;                                                                       \
        ma.b = b;                                                                              \
        ma.n = n < 4096 ? n : 4096;                                                            \
        cz_##G##_xyzz_set_infinity(&ma.acc);                                                   \
        *madd_ns = cz_bench_median_ns(G##_madd_run, &ma, 20000, 5);                            \
        G##_msm_arg a = {b, s, n, pool, o, 0};                                                 \
        double c0 = process_cpu_ms();                                                          \
        *ms = cz_bench_median_ns(G##_msm_run, &a, 1, samples) / 1e6;                           \
        /* cz_bench_median_ns runs one warm-up call before the samples */                     \
        *cpu_ms = (process_cpu_ms() - c0) / (samples + 1);                                     \
        rc = a.rc;                                                                             \
    }                                                                                          \
    free(b);                                                                                   \
    free(s);                                                                                   \
    return rc;                                                                                 \
}                                                                                              \
/* --sweep: the automatic plan (cs[0] = 0) and the forced windows around   */                 \
/* its choice (sweep_windows), one MSM of each per round (interleaved: a   */                 \
/* slow spell of a shared machine hits every window alike, and the order   */                 \
/* rotates from round to round); ms[k] and                                 */                 \
/* cpu[k]: medians over the rounds of the wall and process CPU times.      */                 \
static int G##_sweep(size_t n, int zeros, int ones, cz_pool *pool, cz_msm_opts *o,           \
                     int samples, int width, unsigned *cs, int *nc, double *ms, double *cpu)   \
{                                                                                              \
    cz_##G##_affine *b = malloc(n * sizeof *b);                                                \
    cz_scalar *s = malloc(n * sizeof *s);                                                      \
    size_t nt = (size_t)samples * (2 * (size_t)width + 2);                                     \
    double *t = malloc(2 * nt * sizeof *t), *u = t ? t + nt : NULL;                            \
    int rc = 1;                                                                                \
    if (b && s && t) {                                                                         \
        G##_make_bases(b, n);                                                                  \
        rand_scalars(s, n, zeros, ones);                                                       \
        cz_##G##_jac r;                                                                        \
        o->window = 0;                                                                         \
        rc = cz_msm_##G(&r, b, s, n, pool, o) != CZ_OK;                                        \
        *nc = sweep_windows(cs, o->info->window, width);                                       \
        for (int i = 0; i < samples && !rc; i++)                                               \
            for (int q = 0; q < *nc && !rc; q++) {                                             \
                int k = (q + i) % *nc; /* each round starts one window later */               \
                o->window = cs[k];                                                             \
                size_t j = (size_t)k * (size_t)samples + (size_t)i;                            \
                double t0 = cz_now_ns(), c0 = process_cpu_ms();                                \
                rc = cz_msm_##G(&r, b, s, n, pool, o) != CZ_OK;                                \
                t[j] = (cz_now_ns() - t0) / 1e6;                                               \
                u[j] = process_cpu_ms() - c0;                                                  \
            }                                                                                  \
        for (int k = 0; k < *nc && !rc; k++) {                                                 \
            ms[k] = median_ms(t + (size_t)k * (size_t)samples, samples);                       \
            cpu[k] = median_ms(u + (size_t)k * (size_t)samples, samples);                      \
        }                                                                                      \
        o->window = 0;                                                                         \
        if (!rc) rc = cz_msm_##G(&r, b, s, n, pool, o) != CZ_OK; /* info: the auto plan */    \
    }                                                                                          \
    free(b);                                                                                   \
    free(s);                                                                                   \
    free(t);                                                                                   \
    return rc;                                                                                 \
}                                                                                              \
/* --tables: build the set (timed), then rounds of one plain and one table */                 \
/* MSM (order alternating); medians of the wall and CPU times of each.     */                 \
static int G##_tables_bench(size_t n, int zeros, int ones, cz_pool *pool, cz_msm_opts *o,    \
                            int samples, unsigned t, double *build_ms, size_t *bytes,         \
                            double ms[2], double cpu[2], cz_msm_info *tinfo)                  \
{                                                                                              \
    cz_##G##_affine *b = malloc(n * sizeof *b);                                                \
    cz_scalar *s = malloc(n * sizeof *s);                                                      \
    double *w = malloc(4 * (size_t)samples * sizeof *w);                                       \
    cz_msm_##G##_tables *tab = NULL;                                                           \
    int rc = 1;                                                                                \
    if (b && s && w) {                                                                         \
        G##_make_bases(b, n);                                                                  \
        rand_scalars(s, n, zeros, ones);                                                       \
        unsigned bits = (256 + t - 1) / t;                                                     \
        cz_errbuf err = {{0}};                                                                 \
        *bytes = cz_msm_##G##_tables_bytes(n, t);                                              \
        double t0 = cz_now_ns();                                                               \
        if (cz_msm_##G##_tables_build(&tab, b, n, t, bits, pool, &err) != CZ_OK) {             \
            fprintf(stderr, "cuzk bench msm: --tables %u: %s\n", t, err.msg);                  \
            goto out;                                                                          \
        }                                                                                      \
        *build_ms = (cz_now_ns() - t0) / 1e6;                                                  \
        cz_##G##_jac r, rt;                                                                    \
        cz_msm_info *pinfo = o->info;                                                          \
        rc = 0;                                                                                \
        /* a warm-up of each; the two must agree */                                            \
        if (cz_msm_##G(&r, b, s, n, pool, o) != CZ_OK) rc = 1;                                 \
        o->info = tinfo;                                                                       \
        if (!rc && cz_msm_##G##_tables_msm(&rt, tab, s, pool, o) != CZ_OK) rc = 1;             \
        o->info = pinfo;                                                                       \
        if (!rc && !cz_##G##_jac_eq(&r, &rt)) {                                                \
            fprintf(stderr, "cuzk bench msm: the table MSM disagrees with the plain one\n");   \
            rc = 1;                                                                            \
        }                                                                                      \
        for (int i = 0; i < samples && !rc; i++)                                               \
            for (int q = 0; q < 2 && !rc; q++) {                                               \
                int k = (q + i) & 1; /* 0: plain, 1: tables */                                \
                double a0 = cz_now_ns(), c0 = process_cpu_ms();                                \
                o->info = k ? tinfo : pinfo;                                                   \
                cz_status st = k ? cz_msm_##G##_tables_msm(&rt, tab, s, pool, o)              \
                                 : cz_msm_##G(&r, b, s, n, pool, o);                           \
                if (st != CZ_OK) rc = 1;                                                       \
                w[(size_t)k * samples + i] = (cz_now_ns() - a0) / 1e6;                         \
                w[(size_t)(2 + k) * samples + i] = process_cpu_ms() - c0;                      \
            }                                                                                  \
        o->info = pinfo;                                                                       \
        for (int k = 0; k < 2 && !rc; k++) {                                                   \
            ms[k] = median_ms(w + (size_t)k * samples, samples);                               \
            cpu[k] = median_ms(w + (size_t)(2 + k) * samples, samples);                        \
        }                                                                                      \
    }                                                                                          \
out:                                                                                           \
    cz_msm_##G##_tables_free(tab);                                                             \
    free(b);                                                                                   \
    free(s);                                                                                   \
    free(w);                                                                                   \
    return rc;                                                                                 \
}                                                                                              \
/* --vs-scalar: rounds of one MSM with lanes and one without (order       */ \
/* alternating); medians of the wall and CPU times of each (k = 0: lanes, */ \
/* 1: scalar) and of the rounds' CPU ratios scalar / lanes.               */ \
static int G##_vs_scalar(size_t n, int zeros, int ones, cz_pool *pool, cz_msm_opts *o,       \
                         int samples, double ms[2], double cpu[2], double *ratio)             \
{                                                                                              \
    cz_##G##_affine *b = malloc(n * sizeof *b);                                                \
    cz_scalar *s = malloc(n * sizeof *s);                                                      \
    double *w = malloc(5 * (size_t)samples * sizeof *w);                                       \
    int rc = 1;                                                                                \
    if (b && s && w) {                                                                         \
        G##_make_bases(b, n);                                                                  \
        rand_scalars(s, n, zeros, ones);                                                       \
        cz_##G##_jac r[2];                                                                     \
        rc = 0;                                                                                \
        for (int k = 0; k < 2 && !rc; k++) { /* a warm-up of each; the two must agree */       \
            o->no_simd = k;                                                                    \
            rc = cz_msm_##G(&r[k], b, s, n, pool, o) != CZ_OK;                                 \
        }                                                                                      \
        if (!rc && !cz_##G##_jac_eq(&r[0], &r[1])) {                                           \
            fprintf(stderr, "cuzk bench msm: the lanes disagree with the scalar flush\n");     \
            rc = 1;                                                                            \
        }                                                                                      \
        for (int i = 0; i < samples && !rc; i++)                                               \
            for (int q = 0; q < 2 && !rc; q++) {                                               \
                int k = (q + i) & 1;                                                           \
                o->no_simd = k;                                                                \
                double a0 = cz_now_ns(), c0 = process_cpu_ms();                                \
                if (cz_msm_##G(&r[k], b, s, n, pool, o) != CZ_OK) rc = 1;                      \
                w[(size_t)k * samples + i] = (cz_now_ns() - a0) / 1e6;                         \
                w[(size_t)(2 + k) * samples + i] = process_cpu_ms() - c0;                      \
            }                                                                                  \
        for (int i = 0; i < samples && !rc; i++)                                               \
            w[(size_t)4 * samples + i] = w[(size_t)3 * samples + i] / w[(size_t)2 * samples + i]; \
        o->no_simd = false;                                                                    \
        for (int k = 0; k < 2 && !rc; k++) {                                                   \
            ms[k] = median_ms(w + (size_t)k * samples, samples);                               \
            cpu[k] = median_ms(w + (size_t)(2 + k) * samples, samples);                        \
        }                                                                                      \
        if (!rc) *ratio = median_ms(w + (size_t)4 * samples, samples);                         \
    }                                                                                          \
    free(b);                                                                                   \
    free(s);                                                                                   \
    free(w);                                                                                   \
    return rc;                                                                                 \
}

BENCH_GROUP(g1)
BENCH_GROUP(g2)

static const cz_opt msm_opts[] = {
    CZ_STR("--group", "g1|g2", "the group (default g1)"),
    CZ_NUM("--log-n", "K", 0, 28, "2^K points (default 16)"),
    CZ_NUM("--threads", "T", 1, 1024, "threads, the calling one included (default 1)"),
    CZ_NUM("--window", "C", 0, CZ_MSM_MAX_WINDOW, "Pippenger window bits (0 = automatic)"),
    CZ_STR("--buckets", "KIND", "auto | xyzz | affine (default auto)"),
    CZ_NUM("--zeros", "PCT", 0, 100, "percent of zero scalars"),
    CZ_NUM("--ones", "PCT", 0, 100, "percent of one scalars"),
    CZ_NUM("--samples", "S", 1, 1000, "samples (default 3; 1 from K = 18)"),
    CZ_NUM("--points", "N", 1, 1L << 28, "N points instead of 2^K (e.g. a prover's merged H + L)"),
    CZ_NUM("--sweep", "W", 0, 8, "also time every window within W of the automatic one (interleaved)"),
    CZ_NUM("--tables", "T", 0, CZ_MSM_MAX_TABLES, "also time a table set of T tables of ceil(256/T) bits (0: none)"),
    CZ_FLAG("--no-simd", "no SIMD lanes (CUZK_MSM_LANES picks which otherwise)"),
    CZ_FLAG("--vs-scalar", "time the MSM with its lanes and with the scalar flush, interleaved"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd msm_cmd = {
    .name = "cuzk bench msm",
    .synopsis = "--group g1|g2 (--log-n K | --points N) --threads T [--window C] [--buckets auto|xyzz|affine]\n        [--samples S] [--zeros PCT] [--ones PCT] [--sweep W] [--tables T] [--no-simd | --vs-scalar] [--json]",
    .opts = msm_opts,
};

/* The --sweep rows: each window's median wall and CPU times, then the
 * automatic plan's time over the best forced window's, by wall time and by
 * CPU time (1.00: the planner found the best; its cost model is meant to
 * stay within a few percent). On a shared machine the CPU figure is the
 * steadier one for one thread; with several threads the wall figure also
 * prices the load balance. */
static int report_sweep(const char *group, const char *size, long threads, const unsigned *cs, int nc,
                        const double *ms, const double *cpu, const cz_msm_info *info, int samples,
                        bool json)
{
    cz_bench_report *r = cz_bench_report_new("msm", json);
    char name[96], extra[256];
    int bw = 1, bc = 1;
    for (int k = 1; k < nc; k++) {
        if (ms[k] < ms[bw]) bw = k;
        if (cpu[k] < cpu[bc]) bc = k;
    }
    for (int k = 0; k < nc; k++) {
        char tag[16];
        if (k == 0) snprintf(tag, sizeof tag, "auto");
        else snprintf(tag, sizeof tag, "c%u", cs[k]);
        snprintf(extra, sizeof extra, "\"window\":%u,\"samples\":%d,\"simd\":%s",
                 k ? cs[k] : info->window, samples, info->simd ? "true" : "false");
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_%s", group, size, threads, tag);
        cz_bench_report_add(r, name, ms[k], "ms", extra);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_%s_cpu", group, size, threads, tag);
        cz_bench_report_add(r, name, cpu[k], "ms", NULL);
    }
    snprintf(name, sizeof name, "msm_%s_%s_t%ld_auto_vs_best", group, size, threads);
    snprintf(extra, sizeof extra, "\"auto_window\":%u,\"best_window\":%u,\"clock\":\"wall\"",
             info->window, cs[bw]);
    cz_bench_report_add(r, name, ms[0] / ms[bw], "x", extra);
    snprintf(name, sizeof name, "msm_%s_%s_t%ld_auto_vs_best_cpu", group, size, threads);
    snprintf(extra, sizeof extra, "\"auto_window\":%u,\"best_window\":%u,\"clock\":\"cpu\"",
             info->window, cs[bc]);
    cz_bench_report_add(r, name, cpu[0] / cpu[bc], "x", extra);
    return cz_bench_report_finish(r);
}

int cz_bench_msm(int argc, char **argv)
{
    cz_args oa;
    int prc = cz_opts_parse(&oa, &msm_cmd, argc, argv);
    if (prc >= 0) return prc;
    const char *group = cz_opt_str(&oa, "--group", "g1");
    long logn = cz_opt_num(&oa, "--log-n", 16);
    long threads = cz_opt_num(&oa, "--threads", 1);
    long window = cz_opt_num(&oa, "--window", 0);
    const char *bk = cz_opt_str(&oa, "--buckets", "auto");
    long zeros = cz_opt_num(&oa, "--zeros", 0);
    long ones = cz_opt_num(&oa, "--ones", 0);
    long samples = cz_opt_num(&oa, "--samples", logn >= 18 ? 1 : 3);
    long points = cz_opt_num(&oa, "--points", 0);
    long sweep = cz_opt_num(&oa, "--sweep", 0);
    long tables = cz_opt_num(&oa, "--tables", 0);
    bool json = cz_opt_flag(&oa, "--json");
    bool no_simd = cz_opt_flag(&oa, "--no-simd");
    bool vs_scalar = cz_opt_flag(&oa, "--vs-scalar");
    bool g2 = !strcmp(group, "g2");
    if (!g2 && strcmp(group, "g1")) return cz_usage_error(&msm_cmd, "--group: expected g1 or g2, got '%s'", group);
    if (strcmp(bk, "auto") && strcmp(bk, "xyzz") && strcmp(bk, "affine"))
        return cz_usage_error(&msm_cmd, "--buckets: expected auto, xyzz or affine, got '%s'", bk);
    if (points && cz_opt_num(&oa, "--log-n", -1) >= 0)
        return cz_usage_error(&msm_cmd, "--points and --log-n exclude each other");
    if (sweep && window) return cz_usage_error(&msm_cmd, "--sweep and --window exclude each other");
    if (sweep && tables) return cz_usage_error(&msm_cmd, "--sweep and --tables exclude each other");
    if (vs_scalar && (sweep || tables || no_simd))
        return cz_usage_error(&msm_cmd, "--vs-scalar excludes --sweep, --tables and --no-simd");
    if (tables == 1) return cz_usage_error(&msm_cmd, "--tables: 1 table is the plain MSM; expected 2..%d, got 1",
                                           CZ_MSM_MAX_TABLES);
    if (zeros + ones > 100) return cz_usage_error(&msm_cmd, "--zeros + --ones: at most 100 percent, got %ld", zeros + ones);
    if ((!g2 && strcmp(group, "g1")) || logn < 0 || logn > 28 || threads < 1 || threads > 1024 ||
        window < 0 || window > CZ_MSM_MAX_WINDOW || zeros < 0 || ones < 0 || zeros + ones > 100) {
        fprintf(stderr, "usage: cuzk bench msm --group g1|g2 --log-n K --threads T [--json]\n"
                        "       [--window C] [--buckets auto|xyzz|affine] [--samples S]\n"
                        "       [--zeros PCT] [--ones PCT] [--no-simd]\n");
        return 2;
    }
    cz_msm_info info;
    cz_msm_opts o = {0};
    o.window = (unsigned)window;
    o.buckets = !strcmp(bk, "xyzz") ? CZ_MSM_BUCKETS_XYZZ
              : !strcmp(bk, "affine") ? CZ_MSM_BUCKETS_AFFINE : CZ_MSM_BUCKETS_AUTO;
    o.info = &info;
    o.no_simd = no_simd;
    /* the calling thread takes part in the work: T threads = T-1 workers */
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)threads - 1, "bmsm") != CZ_OK) {
        fprintf(stderr, "cuzk bench msm: cannot create the thread pool\n");
        return 1;
    }
    size_t n = points ? (size_t)points : (size_t)1 << logn;
    char size[32];
    if (points) snprintf(size, sizeof size, "n%ld", points);
    else snprintf(size, sizeof size, "2^%ld", logn);
    if (sweep) {
        unsigned cs[2 * 8 + 2];
        double sms[2 * 8 + 2], scpu[2 * 8 + 2];
        int nc = 0;
        int src = g2 ? g2_sweep(n, (int)zeros, (int)ones, pool, &o, (int)samples, (int)sweep, cs, &nc, sms, scpu)
                     : g1_sweep(n, (int)zeros, (int)ones, pool, &o, (int)samples, (int)sweep, cs, &nc, sms, scpu);
        cz_pool_destroy(pool);
        if (src) {
            fprintf(stderr, "cuzk bench msm: out of memory or MSM error\n");
            return 1;
        }
        return report_sweep(group, size, threads, cs, nc, sms, scpu, &info, (int)samples, json);
    }
    if (tables) {
        double tms[2] = {0, 0}, tcpu[2] = {0, 0}, build = 0;
        size_t bytes = 0;
        cz_msm_info tinfo;
        memset(&tinfo, 0, sizeof tinfo);
        int trc = g2 ? g2_tables_bench(n, (int)zeros, (int)ones, pool, &o, (int)samples, (unsigned)tables, &build,
                                       &bytes, tms, tcpu, &tinfo)
                     : g1_tables_bench(n, (int)zeros, (int)ones, pool, &o, (int)samples, (unsigned)tables, &build,
                                       &bytes, tms, tcpu, &tinfo);
        cz_pool_destroy(pool);
        if (trc) {
            fprintf(stderr, "cuzk bench msm: out of memory or MSM error\n");
            return 1;
        }
        cz_bench_report *r = cz_bench_report_new("msm", json);
        char name[96], extra[512];
        unsigned bits = (256 + (unsigned)tables - 1) / (unsigned)tables;
        snprintf(extra, sizeof extra, "\"window\":%u,\"nwin\":%u,\"samples\":%ld,\"simd\":%s",
                 info.window, info.nwin, samples, info.simd ? "true" : "false");
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_plain", group, size, threads);
        cz_bench_report_add(r, name, tms[0], "ms", extra);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_plain_cpu", group, size, threads);
        cz_bench_report_add(r, name, tcpu[0], "ms", NULL);
        snprintf(extra, sizeof extra,
                 "\"tables\":%ld,\"bits\":%u,\"used\":%u,\"window\":%u,\"nwin\":%u,\"parts\":%u,"
                 "\"scratch_bytes\":%zu",
                 tables, bits, tinfo.tables, tinfo.window, tinfo.nwin, tinfo.nparts, tinfo.scratch_bytes);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_tables%ld", group, size, threads, tables);
        cz_bench_report_add(r, name, tms[1], "ms", extra);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_tables%ld_cpu", group, size, threads, tables);
        cz_bench_report_add(r, name, tcpu[1], "ms", NULL);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_tables%ld_build", group, size, threads, tables);
        cz_bench_report_add(r, name, build, "ms", NULL);
        snprintf(name, sizeof name, "msm_%s_%s_tables%ld_bytes", group, size, tables);
        cz_bench_report_add(r, name, (double)bytes, "B", NULL);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_plain_vs_tables%ld", group, size, threads, tables);
        cz_bench_report_add(r, name, tms[0] / tms[1], "x", "\"clock\":\"wall\"");
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_plain_vs_tables%ld_cpu", group, size, threads, tables);
        cz_bench_report_add(r, name, tcpu[0] / tcpu[1], "x", "\"clock\":\"cpu\"");
        return cz_bench_report_finish(r);
    }
    if (vs_scalar) {
        double vms[2] = {0, 0}, vcpu[2] = {0, 0}, ratio = 0;
        int vrc = g2 ? g2_vs_scalar(n, (int)zeros, (int)ones, pool, &o, (int)samples, vms, vcpu, &ratio)
                     : g1_vs_scalar(n, (int)zeros, (int)ones, pool, &o, (int)samples, vms, vcpu, &ratio);
        cz_pool_destroy(pool);
        if (vrc) {
            fprintf(stderr, "cuzk bench msm: out of memory or MSM error\n");
            return 1;
        }
        double cal;
        const char *lanes = cz_msm_lanes_chosen(&cal);
        cz_bench_report *r = cz_bench_report_new("msm", json);
        char name[96], extra[256];
        snprintf(extra, sizeof extra, "\"lanes\":\"%s\",\"lanes_calibration\":%.3f,\"window\":%u,\"samples\":%ld",
                 lanes, cal, info.window, samples);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_lanes", group, size, threads);
        cz_bench_report_add(r, name, vms[0], "ms", extra);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_lanes_cpu", group, size, threads);
        cz_bench_report_add(r, name, vcpu[0], "ms", NULL);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_scalar", group, size, threads);
        cz_bench_report_add(r, name, vms[1], "ms", NULL);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_scalar_cpu", group, size, threads);
        cz_bench_report_add(r, name, vcpu[1], "ms", NULL);
        snprintf(name, sizeof name, "msm_%s_%s_t%ld_scalar_vs_lanes_cpu", group, size, threads);
        cz_bench_report_add(r, name, ratio, "x", "\"clock\":\"cpu\",\"of\":\"median of the rounds' ratios\"");
        return cz_bench_report_finish(r);
    }
    double ms = 0, cpu = 0, madd = 0;
    int rc = g2 ? g2_bench(n, (int)zeros, (int)ones, pool, &o, (int)samples, &ms, &cpu, &madd)
                : g1_bench(n, (int)zeros, (int)ones, pool, &o, (int)samples, &ms, &cpu, &madd);
    cz_pool_destroy(pool);
    if (rc) {
        fprintf(stderr, "cuzk bench msm: out of memory or MSM error\n");
        return 1;
    }
    cz_bench_report *r = cz_bench_report_new("msm", json);
    char name[96], extra[512];
    snprintf(extra, sizeof extra,
             "\"group\":\"%s\",\"log_n\":%ld,\"points\":%zu,\"threads\":%ld,\"window\":%u,\"nwin\":%u,"
             "\"parts\":%u,\"buckets\":\"%s\",\"batch\":%u,\"zeros\":%ld,\"ones\":%ld,"
             "\"scratch_bytes\":%zu,\"simd\":%s,\"lanes\":\"%s\"",
             group, points ? -1L : logn, n, threads, info.window, info.nwin, info.nparts,
             info.affine ? "affine" : "xyzz", info.batch, zeros, ones, info.scratch_bytes,
             info.simd ? "true" : "false", cz__msm_lanes_name(info.simd ? cz__msm_lanes() : CZ_MSM_LANES_NONE));
    snprintf(name, sizeof name, "msm_%s_%s_t%ld", group, size, threads);
    cz_bench_report_add(r, name, ms, "ms", extra);
    snprintf(name, sizeof name, "msm_%s_%s_t%ld_cpu", group, size, threads);
    cz_bench_report_add(r, name, cpu, "ms", NULL);
    snprintf(name, sizeof name, "msm_%s_%s_t%ld_per_point", group, size, threads);
    cz_bench_report_add(r, name, ms * 1e6 / (double)n, "ns/point", NULL);
    snprintf(name, sizeof name, "%s_xyzz_madd", group);
    cz_bench_report_add(r, name, madd, "ns/op", NULL);
    snprintf(name, sizeof name, "msm_%s_%s_t%ld_floor_ratio", group, size, threads);
    cz_bench_report_add(r, name, ms * 1e6 / ((double)n * madd), "x", NULL);
    return cz_bench_report_finish(r);
}
