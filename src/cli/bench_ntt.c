/*
 * cuzk bench ntt --log-n K --threads T [--quotient] [--samples S] [--json]
 *                [--no-simd]
 *
 * Times the forward and inverse NTT of size 2^K (and, with --quotient, the
 * Groth16 quotient: 6 transforms + pointwise work) and reports ms,
 * ns/point and the ratio to the arithmetic floor
 *     time / (n/2 · log2 n · t_mul),
 * t_mul being the cost of one cz_fr_mul measured in the same run
 * (throughput over an L1-resident array, thread CPU time, best of 9). The floor counts one thread's
 * multiplications; with T threads the ideal ratio is 1/T.
 *
 * Each row also gives the CPU time of all threads per run and its ratio
 * to the floor (steadier than wall time on a shared machine; for T = 1 it
 * is the single-thread figure, for T > 1 it shows the threading overhead).
 *
 * T threads = the calling thread + T-1 pool workers (T = 1: NULL pool).
 * --no-simd runs the scalar butterflies where the AVX-512 IFMA ones would
 * run (the "simd" field of the JSON says which ran).
 */
#include "bench_util.h"
#include "opts.h"
#include "commands.h"
#include "cuzk/field.h"
#include "cuzk/ntt.h"
#include "cuzk/threadpool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct {
    cz_fr *x, *y;
    size_t n;
} mul_arg;

static void mul_loop(void *argp, size_t iters)
{
    mul_arg *m = argp;
    for (size_t it = 0; it < iters; it += m->n) {
        for (size_t i = 0; i < m->n; i++) cz_fr_mul(&m->x[i], &m->x[i], &m->y[i]);
    }
}

typedef struct {
    cz_pool *pool;
    const cz_ntt_domain *d;
    cz_fr *x, *b, *c;
    const cz_fr *src;
    size_t n;
    int which; /* 0 forward, 1 inverse, 2 quotient */
} ntt_arg;

static void ntt_loop(void *argp, size_t iters)
{
    ntt_arg *a = argp;
    for (size_t it = 0; it < iters; it++) {
        switch (a->which) {
        case 0: cz_ntt_forward(a->pool, a->d, a->x); break;
        case 1: cz_ntt_inverse(a->pool, a->d, a->x); break;
        default:
            /* inputs are consumed: refresh b and c (a is the output; its
             * values do not matter for the timing) — memcpy time included,
             * small next to 6 transforms */
            memcpy(a->b, a->src, a->n * sizeof(cz_fr));
            memcpy(a->c, a->src, a->n * sizeof(cz_fr));
            cz_quotient_h(a->pool, a->d, a->x, a->b, a->c);
            break;
        }
    }
}

static const cz_opt ntt_opts[] = {
    CZ_NUM("--log-n", "K", 1, CZ_NTT_MAX_LOG_N, "domain size 2^K (default 20)"),
    CZ_NUM("--threads", "T", 1, 1024, "threads, the calling one included (default 1)"),
    CZ_NUM("--samples", "S", 1, 1000, "samples per figure (default 5; 3 from K = 22)"),
    CZ_FLAG("--quotient", "also time the Groth16 quotient (six transforms: see cz_quotient_h)"),
    CZ_FLAG("--no-simd", "scalar kernels only"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd ntt_cmd = {
    .name = "cuzk bench ntt",
    .synopsis = "--log-n K --threads T [--samples S] [--quotient] [--no-simd] [--json]",
    .opts = ntt_opts,
};

int cz_bench_ntt(int argc, char **argv)
{
    cz_args oa;
    int prc = cz_opts_parse(&oa, &ntt_cmd, argc, argv);
    if (prc >= 0) return prc;
    long log_n = cz_opt_num(&oa, "--log-n", 20);
    long threads = cz_opt_num(&oa, "--threads", 1);
    long samples = cz_opt_num(&oa, "--samples", log_n >= 22 ? 3 : 5);
    bool json = cz_opt_flag(&oa, "--json");
    bool quotient = cz_opt_flag(&oa, "--quotient");
    if (cz_opt_flag(&oa, "--no-simd")) cz_ntt_set_simd(false);
    if (log_n < 1 || log_n > CZ_NTT_MAX_LOG_N || threads < 1 || threads > 1024 || samples < 1) {
        fprintf(stderr, "cuzk bench ntt: --log-n 1..%d, --threads >= 1, --samples >= 1\n", CZ_NTT_MAX_LOG_N);
        return 2;
    }
    size_t n = (size_t)1 << log_n;

    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "bench-ntt") != CZ_OK) {
        fprintf(stderr, "cuzk bench ntt: cannot create a pool of %ld threads\n", threads);
        return 1;
    }
    cz_ntt_domain *d = NULL;
    double t0 = cz_now_ns();
    cz_status st = cz_ntt_domain_create(&d, (unsigned)log_n, pool);
    double t_domain = cz_now_ns() - t0;
    size_t nbuf = quotient ? 4 : 1;
    cz_fr *buf = st == CZ_OK ? malloc(nbuf * n * sizeof(cz_fr)) : NULL;
    if (!buf) {
        fprintf(stderr, "cuzk bench ntt: %s\n", st != CZ_OK ? cz_status_str(st) : "out of memory");
        cz_ntt_domain_free(d);
        cz_pool_destroy(pool);
        return 1;
    }
    /* pseudo-random inputs (values do not affect timing) */
    cz_fr seed;
    cz_fr_from_u64(&seed, 0x1234567);
    cz_fr acc = seed;
    for (size_t i = 0; i < nbuf * n; i++) {
        cz_fr_mul(&acc, &acc, &seed);
        cz_fr_add(&acc, &acc, &CZ_FR_ONE);
        buf[i] = acc;
    }

    /* Fr mul throughput */
    enum { MN = 512 };
    static cz_fr mx[MN], my[MN];
    for (size_t i = 0; i < MN; i++) {
        mx[i] = buf[i % n];
        my[i] = buf[(i * 7 + 3) % n];
    }
    /* thread CPU time, best of 9: on a shared machine wall time would
     * charge other processes' time slices to the multiplication */
    mul_arg ma = {mx, my, MN};
    double t_mul = 1e30;
    mul_loop(&ma, 20 * MN);
    for (int rep = 0; rep < 9; rep++) {
        double c0 = thread_cpu_ns();
        mul_loop(&ma, 200 * MN);
        double tm = (thread_cpu_ns() - c0) / (200.0 * MN);
        if (tm < t_mul) t_mul = tm;
    }

    double floor_ns = (double)n / 2 * (double)log_n * t_mul;
    char extra[200];
    cz_bench_report *r = cz_bench_report_new("ntt", json);
    snprintf(extra, sizeof extra, "\"backend\":\"%s\"", cz_ff_backend_name(cz_ff_get_backend()));
    cz_bench_report_add(r, "fr_mul", t_mul, "ns/op", extra);
    snprintf(extra, sizeof extra, "\"log_n\":%ld,\"threads\":%ld,\"bytes\":%zu", log_n, threads,
             cz_ntt_domain_memory((unsigned)log_n));
    cz_bench_report_add(r, "domain_create", t_domain / 1e6, "ms", extra);

    static const char *names[3] = {"forward", "inverse", "quotient"};
    for (int which = 0; which < (quotient ? 3 : 2); which++) {
        ntt_arg a = {pool, d, buf, buf + n, buf + 2 * n, buf + 3 * n, n, which};
        double c0 = cpu_ns();
        double t = cz_bench_median_ns(ntt_loop, &a, 1, (int)samples);
        /* CPU time of all threads per run (the median helper runs it
         * samples + 1 times): cpu/wall near T means the threads were busy;
         * on a loaded machine the CPU-time ratio is the steadier figure. */
        double tc = (cpu_ns() - c0) / (double)(samples + 1);
        /* the quotient is 6 transforms: compare it with 6 floors */
        double fl = which == 2 ? 6 * floor_ns : floor_ns;
        char name[64];
        snprintf(name, sizeof name, "%s 2^%ld T=%ld", names[which], log_n, threads);
        snprintf(extra, sizeof extra,
                 "\"log_n\":%ld,\"threads\":%ld,\"ns_per_point\":%.3f,\"floor_ratio\":%.3f,"
                 "\"cpu_ms\":%.3f,\"cpu_floor_ratio\":%.3f,\"simd\":%s",
                 log_n, threads, t / (double)n, t / fl, tc / 1e6, tc / fl,
                 cz_ntt_simd_enabled() ? "true" : "false");
        if (!json) {
            snprintf(extra, sizeof extra, "%.2f ns/point, %.2fx floor%s; cpu %.1f ms (%.2fx floor)", t / (double)n,
                     t / fl, which == 2 ? " (6 NTTs)" : "", tc / 1e6, tc / fl);
        }
        cz_bench_report_add(r, name, t / 1e6, "ms", extra);
    }

    free(buf);
    cz_ntt_domain_free(d);
    cz_pool_destroy(pool);
    return cz_bench_report_finish(r);
}
