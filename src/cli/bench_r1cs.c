/*
 * cuzk bench r1cs [--blocks N] [--mul N] [--threads T] [--samples S] [--json]
 *
 * The constraint-system layer on two circuits: a SHA-256 hash of an N-block
 * message (the PoRep hot spot: booleans and sums) and the mulchain of N
 * multiplications (one dense-coefficient row each). Per circuit:
 *   - recording (once per circuit shape) in ms;
 *   - witness generation (per proof) in ms and ns per constraint;
 *   - SpMV a, b, c = A·z, B·z, C·z with T threads (per proof), ms and ns
 *     per nonzero;
 *   - PCE memory (bytes, bytes per nonzero) and save + load time.
 * Timings are medians of S runs. T threads = the calling thread + T−1 pool
 * workers (T = 1: NULL pool).
 */
#include "bench_util.h"
#include "opts.h"
#include "cuzk/circuits.h"
#include "cuzk/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cz_bench_r1cs(int argc, char **argv);

typedef struct {
    uint8_t *msg;
    size_t len;
} sha_ctx;

static cz_status sha_synth(cz_cs *cs, const void *vctx)
{
    const sha_ctx *c = vctx;
    cz_bit *bits = malloc((8 * c->len + 1) * sizeof(cz_bit));
    if (!bits)
        return CZ_ERR_NOMEM;
    cz_bits_alloc_bytes(cs, bits, c->msg, c->len);
    cz_bit out[256];
    cz_sha256_gadget(cs, out, bits, 8 * c->len);
    free(bits);
    return CZ_OK;
}

typedef struct {
    cz_synth_fn fn;
    const void *ctx;
    const cz_pce *pce;
    cz_witness *w;
    cz_pool *pool;
    cz_fr *a, *b, *c;
    size_t m;
    int failed;
} run_arg;

static void rec_loop(void *argp, size_t iters)
{
    run_arg *r = argp;
    for (size_t i = 0; i < iters; i++) {
        cz_pce *p = NULL;
        if (cz_pce_record(&p, r->fn, r->ctx, NULL) != CZ_OK)
            r->failed = 1;
        cz_pce_free(p);
    }
}

static void wit_loop(void *argp, size_t iters)
{
    run_arg *r = argp;
    for (size_t i = 0; i < iters; i++) {
        cz_witness w;
        if (cz_witness_generate(&w, r->fn, r->ctx, r->pce) != CZ_OK)
            r->failed = 1;
        else
            cz_witness_free(&w);
    }
}

static void spmv_loop(void *argp, size_t iters)
{
    run_arg *r = argp;
    for (size_t i = 0; i < iters; i++)
        if (cz_pce_eval(r->pce, r->w, r->pool, r->a, r->b, r->c, r->m) != CZ_OK)
            r->failed = 1;
}

static void io_loop(void *argp, size_t iters)
{
    run_arg *r = argp;
    char path[64];
    snprintf(path, sizeof path, "/tmp/cuzk-bench-pce-%d", (int)getpid());
    for (size_t i = 0; i < iters; i++) {
        cz_pce *q = NULL;
        if (cz_pce_save(r->pce, path, NULL, 0) != CZ_OK || cz_pce_load(&q, path, NULL, 0) != CZ_OK)
            r->failed = 1;
        cz_pce_free(q);
    }
    remove(path);
}

static int bench_circuit(cz_bench_report *rep, const char *name, cz_synth_fn fn, const void *ctx, cz_pool *pool,
                         long threads, int samples)
{
    cz_pce *p = NULL;
    if (cz_pce_record(&p, fn, ctx, NULL) != CZ_OK) {
        fprintf(stderr, "bench r1cs: recording %s failed\n", name);
        return 1;
    }
    cz_witness w;
    if (cz_witness_generate(&w, fn, ctx, p) != CZ_OK) {
        fprintf(stderr, "bench r1cs: witness for %s failed\n", name);
        cz_pce_free(p);
        return 1;
    }
    size_t m = (size_t)p->n_constraints;
    run_arg r = {fn, ctx, p, &w, pool, NULL, NULL, NULL, m, 0};
    r.a = malloc(m * sizeof(cz_fr));
    r.b = malloc(m * sizeof(cz_fr));
    r.c = malloc(m * sizeof(cz_fr));
    if (!r.a || !r.b || !r.c) {
        fprintf(stderr, "bench r1cs: out of memory\n");
        free(r.a);
        free(r.b);
        free(r.c);
        cz_witness_free(&w);
        cz_pce_free(p);
        return 1;
    }
    uint64_t nnz = p->a.nnz + p->b.nnz + p->c.nnz;
    char extra[256], row[96];
    snprintf(extra, sizeof extra,
             "\"constraints\":%llu,\"aux\":%llu,\"nnz\":%llu,\"threads\":%ld,\"coeffs\":%u",
             (unsigned long long)p->n_constraints, (unsigned long long)p->n_aux, (unsigned long long)nnz, threads,
             p->n_coeffs);
    fprintf(stderr, "%s: %llu constraints, %llu aux, nnz A/B/C %llu/%llu/%llu, %u distinct coefficients\n", name,
            (unsigned long long)p->n_constraints, (unsigned long long)p->n_aux, (unsigned long long)p->a.nnz,
            (unsigned long long)p->b.nnz, (unsigned long long)p->c.nnz, p->n_coeffs);
    double t;
    t = cz_bench_median_ns(rec_loop, &r, 1, samples);
    snprintf(row, sizeof row, "%s_record", name);
    cz_bench_report_add(rep, row, t / 1e6, "ms", extra);
    t = cz_bench_median_ns(wit_loop, &r, 1, samples);
    snprintf(row, sizeof row, "%s_witness", name);
    cz_bench_report_add(rep, row, t / 1e6, "ms", extra);
    snprintf(row, sizeof row, "%s_witness_per_constraint", name);
    cz_bench_report_add(rep, row, t / (double)p->n_constraints, "ns", extra);
    t = cz_bench_median_ns(spmv_loop, &r, 1, samples);
    snprintf(row, sizeof row, "%s_spmv", name);
    cz_bench_report_add(rep, row, t / 1e6, "ms", extra);
    snprintf(row, sizeof row, "%s_spmv_per_nnz", name);
    cz_bench_report_add(rep, row, t / (double)nnz, "ns", extra);
    snprintf(row, sizeof row, "%s_pce_bytes_per_nnz", name);
    cz_bench_report_add(rep, row, (double)cz_pce_bytes(p) / (double)nnz, "B", extra);
    t = cz_bench_median_ns(io_loop, &r, 1, samples);
    snprintf(row, sizeof row, "%s_pce_save_load", name);
    cz_bench_report_add(rep, row, t / 1e6, "ms", extra);
    int failed = r.failed;
    free(r.a);
    free(r.b);
    free(r.c);
    cz_witness_free(&w);
    cz_pce_free(p);
    if (failed)
        fprintf(stderr, "bench r1cs: a run of %s failed\n", name);
    return failed;
}

static const cz_opt r1cs_opts[] = {
    CZ_NUM("--blocks", "N", 1, 100000, "SHA-256 compressions of the recorded circuit (default 16)"),
    CZ_NUM("--mul", "N", 1, 1L << 30, "multiplications of the mulchain circuit (default 262144)"),
    CZ_NUM("--threads", "T", 1, 1024, "threads, the calling one included (default 1)"),
    CZ_NUM("--samples", "S", 1, 1000, "samples (default 3)"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd r1cs_cmd = {
    .name = "cuzk bench r1cs",
    .synopsis = "[--blocks N] [--mul N] --threads T [--samples S] [--json]",
    .opts = r1cs_opts,
};

int cz_bench_r1cs(int argc, char **argv)
{
    cz_args oa;
    int prc = cz_opts_parse(&oa, &r1cs_cmd, argc, argv);
    if (prc >= 0) return prc;
    long blocks = cz_opt_num(&oa, "--blocks", 16);
    long nmul = cz_opt_num(&oa, "--mul", 1 << 18);
    long threads = cz_opt_num(&oa, "--threads", 1);
    long samples = cz_opt_num(&oa, "--samples", 3);
    bool json = cz_opt_flag(&oa, "--json");
    if (blocks < 1 || blocks > 100000 || nmul < 1 || nmul > (1l << 30) || threads < 1 || threads > 1024 ||
        samples < 1) {
        fprintf(stderr, "bench r1cs: --blocks 1..100000, --mul 1..2^30, --threads 1..1024, --samples >= 1\n");
        return 2;
    }
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "bench-r1cs") != CZ_OK) {
        fprintf(stderr, "bench r1cs: cannot create the thread pool\n");
        return 1;
    }
    cz_bench_report *rep = cz_bench_report_new("r1cs", json);
    sha_ctx sc = {NULL, (size_t)blocks * 64 - 9}; /* exactly `blocks` compressions */
    sc.msg = malloc(sc.len);
    int rc = 1;
    if (sc.msg) {
        for (size_t i = 0; i < sc.len; i++)
            sc.msg[i] = (uint8_t)(i * 131 + 7);
        rc = bench_circuit(rep, "sha256", sha_synth, &sc, pool, threads, (int)samples);
        cz_mulchain mc = {.n_mul = (size_t)nmul, .n_extra_inputs = 0};
        cz_fr_from_u64(&mc.x0, 3);
        rc |= bench_circuit(rep, "mulchain", cz_mulchain_synth, &mc, pool, threads, (int)samples);
    }
    free(sc.msg);
    cz_bench_report_finish(rep);
    cz_pool_destroy(pool);
    return rc;
}
