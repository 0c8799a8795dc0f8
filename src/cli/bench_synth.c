/*
 * cuzk bench synth --preset S [--threads T] [--samples N] [--json]
 *
 * Synthesis of one partition of a PoRep-shaped preset (cuzk/circuits.h):
 *   - recording the circuit once (the PCE), ms;
 *   - generating the vanilla proof (sector, labels, trees), ms;
 *   - witness generation (one thread per partition, as the engine runs it), ms;
 *   - SpMV a, b, c = A·z, B·z, C·z over the PCE with T threads (cz_pce_eval), ms;
 *   - constraints per second of witness + SpMV;
 *   - peak RSS (VmHWM of /proc/self/status) and the bytes one partition
 *     holds: a, b, c at the padded domain size m (3 · 32 · m), the
 *     assignment (32 B per input and aux) and the density bitmaps; the
 *     PCE (shared by all partitions) separately.
 * Timings are medians of N samples. T threads = the calling thread + T−1
 * pool workers (T = 1: NULL pool). The first line printed (stderr) names the
 * preset's parameters and its exact constraint count.
 */
#include "bench_util.h"
#include "opts.h"
#include "cuzk/circuits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cz_bench_synth(int argc, char **argv);

typedef struct {
    const cz_pce *pce;
    const cz_porep_ctx *ctx;
    cz_witness w;
    cz_pool *pool;
    cz_fr *a, *b, *c;
    size_t m;
    int failed;
} synth_arg;

static void witness_loop(void *argp, size_t iters)
{
    synth_arg *s = argp;
    for (size_t i = 0; i < iters; i++) {
        cz_witness_free(&s->w);
        if (cz_witness_generate(&s->w, cz_porep_synth, s->ctx, s->pce) != CZ_OK)
            s->failed = 1;
    }
}

static void spmv_loop(void *argp, size_t iters)
{
    synth_arg *s = argp;
    for (size_t i = 0; i < iters; i++)
        if (cz_pce_eval(s->pce, &s->w, s->pool, s->a, s->b, s->c, s->m) != CZ_OK)
            s->failed = 1;
}

static long vm_hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kib;
}

static const cz_opt synth_opts[] = {
    CZ_STR("--preset", "NAME", "a PoRep-shaped preset (default shaped-14)"),
    CZ_NUM("--threads", "T", 1, 4096, "threads, the calling one included (default 1)"),
    CZ_NUM("--samples", "S", 1, 1000, "samples (default 3)"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd synth_cmd = {
    .name = "cuzk bench synth",
    .synopsis = "--preset S --threads T [--samples S] [--json]",
    .opts = synth_opts,
};

int cz_bench_synth(int argc, char **argv)
{
    cz_args oa;
    int prc = cz_opts_parse(&oa, &synth_cmd, argc, argv);
    if (prc >= 0) return prc;
    const char *name = cz_opt_str(&oa, "--preset", "shaped-14");
    long threads = cz_opt_num(&oa, "--threads", 1);
    long samples = cz_opt_num(&oa, "--samples", 3);
    bool json = cz_opt_flag(&oa, "--json");
    const cz_porep_params *p = cz_porep_preset_get(name);
    if (!p || threads < 1 || threads > 4096 || samples < 1) {
        fprintf(stderr, "cuzk bench synth: --preset: unknown preset '%s' (", name);
        for (size_t i = 0; i < cz_porep_preset_count(); i++)
            fprintf(stderr, "%s%s", i ? ", " : "", cz_porep_preset_at(i)->name);
        fprintf(stderr, ")\n");
        return 2;
    }
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "bench-syn") != CZ_OK) {
        fprintf(stderr, "cuzk bench synth: cannot create a pool of %ld threads\n", threads);
        return 1;
    }
    int rc = 1;
    cz_pce *pce = NULL;
    cz_porep_vanilla *v = NULL;
    synth_arg s = {.pool = pool};
    cz_errbuf err = {{0}};
    cz_porep_ctx shape_ctx = {.params = p};
    double t0 = cz_now_ns();
    cz_status st = cz_pce_record(&pce, cz_porep_synth, &shape_ctx, NULL);
    double t1 = cz_now_ns();
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk bench synth: recording %s failed: %s\n", name, cz_status_str(st));
        goto out;
    }
    st = cz_porep_generate(&v, p, 1, 1, 1, pool, &err);
    double t2 = cz_now_ns();
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk bench synth: %s\n", err.msg);
        goto out;
    }
    cz_porep_ctx ctx;
    if (cz_porep_ctx_init(&ctx, v, 0) != CZ_OK)
        goto out;
    s.pce = pce;
    s.ctx = &ctx;
    s.m = 1;
    while (s.m < pce->n_constraints)
        s.m <<= 1;
    s.a = malloc(s.m * sizeof(cz_fr));
    s.b = malloc(s.m * sizeof(cz_fr));
    s.c = malloc(s.m * sizeof(cz_fr));
    if (!s.a || !s.b || !s.c) {
        fprintf(stderr, "cuzk bench synth: out of memory for a, b, c\n");
        goto out;
    }
    double wit_ns = cz_bench_median_ns(witness_loop, &s, 1, (int)samples);
    double spmv_ns = s.failed ? 0 : cz_bench_median_ns(spmv_loop, &s, 1, (int)samples);
    uint64_t bad_row = 0;
    if (s.failed || cz_pce_is_satisfied(pce, &s.w, &bad_row) != CZ_OK) {
        fprintf(stderr, "cuzk bench synth: synthesis failed or unsatisfied (row %llu)\n",
                (unsigned long long)bad_row);
        goto out;
    }
    cz_porep_shape shape = {pce->n_constraints, pce->n_inputs, pce->n_aux};
    char line[512];
    cz_porep_describe(p, &shape, line, sizeof line);
    fprintf(stderr, "%s\n", line);

    double abc = 3.0 * 32.0 * (double)s.m;
    double assign = 32.0 * (double)(pce->n_inputs + pce->n_aux);
    double dens = 8.0 * (double)(2 * ((pce->n_aux + 63) / 64) + (pce->n_inputs + 63) / 64);
    long hwm = vm_hwm_kib();
    char extra[256];
    snprintf(extra, sizeof extra, "\"preset\":\"%s\",\"threads\":%ld,\"constraints\":%llu", name,
             threads, (unsigned long long)pce->n_constraints);
    cz_bench_report *rep = cz_bench_report_new("synth", json);
    cz_bench_report_add(rep, "constraints", (double)pce->n_constraints, "count", extra);
    cz_bench_report_add(rep, "inputs", (double)pce->n_inputs, "count", extra);
    cz_bench_report_add(rep, "aux", (double)pce->n_aux, "count", extra);
    cz_bench_report_add(rep, "domain_m", (double)s.m, "count", extra);
    cz_bench_report_add(rep, "record", (t1 - t0) / 1e6, "ms", extra);
    cz_bench_report_add(rep, "gen_vanilla", (t2 - t1) / 1e6, "ms", extra);
    cz_bench_report_add(rep, "witness", wit_ns / 1e6, "ms", extra);
    cz_bench_report_add(rep, "spmv", spmv_ns / 1e6, "ms", extra);
    cz_bench_report_add(rep, "synth_total", (wit_ns + spmv_ns) / 1e6, "ms", extra);
    cz_bench_report_add(rep, "constraints_per_s", (double)pce->n_constraints / ((wit_ns + spmv_ns) / 1e9),
                        "1/s", extra);
    cz_bench_report_add(rep, "peak_rss", hwm > 0 ? (double)hwm / 1024.0 : -1, "MiB", extra);
    cz_bench_report_add(rep, "bytes_abc", abc, "B", extra);
    cz_bench_report_add(rep, "bytes_aux", assign, "B", extra);
    cz_bench_report_add(rep, "bytes_density", dens, "B", extra);
    cz_bench_report_add(rep, "bytes_per_partition", abc + assign + dens, "B", extra);
    cz_bench_report_add(rep, "bytes_pce_shared", (double)cz_pce_bytes(pce), "B", extra);
    cz_bench_report_finish(rep);
    rc = 0;
out:
    cz_witness_free(&s.w);
    free(s.a);
    free(s.b);
    free(s.c);
    cz_porep_vanilla_free(v);
    cz_pce_free(pce);
    cz_pool_destroy(pool);
    return rc;
}
