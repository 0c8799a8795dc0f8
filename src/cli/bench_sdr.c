/*
 * cuzk bench sdr [--sector-size 8MiB] [--api v1.1] [--threads T] [--samples S] [--json]
 *
 * Filecoin sealing of one sector in memory (cuzk/fil_seal.h), phase by
 * phase: tree D (SHA-256 over the fr32-padded data), the parent cache,
 * SDR labelling (layers × nodes labels of 37 parents each; SHA-256 bound),
 * tree C (column hashes + Poseidon octree), encoding, tree R last and C1.
 * Prints ms per phase (median of the samples) and labels/s (nodes × layers
 * / labelling time) and names the SHA-256 kernel in use.
 * T threads = the calling thread + T−1 pool workers.
 */
#include "bench_util.h"
#include "opts.h"
#include "commands.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_seal.h"
#include "cuzk/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const cz_opt sdr_opts[] = {
    CZ_STR("--sector-size", "SIZE", "2KiB | 8MiB | 512MiB (default 8MiB)"),
    CZ_STR("--api", "VERSION", "v1.0 | v1.1 (default) | v1.2"),
    CZ_NUM("--threads", "T", 0, 1024, "threads, the calling one included (0 = one per CPU, the default)"),
    CZ_NUM("--samples", "S", 1, 100, "samples (default 1)"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd sdr_cmd = {
    .name = "cuzk bench sdr",
    .synopsis = "--sector-size 2KiB|8MiB|512MiB [--api v1.0|v1.1|v1.2] [--threads T] [--samples S] [--json]",
    .opts = sdr_opts,
};

int cz_bench_sdr(int argc, char **argv) {
    cz_args oa;
    int prc = cz_opts_parse(&oa, &sdr_cmd, argc, argv);
    if (prc >= 0) return prc;
    const char *ss = cz_opt_str(&oa, "--sector-size", "8MiB");
    const char *api_s = cz_opt_str(&oa, "--api", "v1.1");
    long threads = cz_opt_num(&oa, "--threads", 0);
    long samples = cz_opt_num(&oa, "--samples", 1);
    bool json = cz_opt_flag(&oa, "--json");
    uint64_t size;
    if (cz_fil_parse_sector_size(ss, &size) != CZ_OK)
        return cz_usage_error(&sdr_cmd, "--sector-size: expected 2KiB, 8MiB or 512MiB, got '%s'", ss);
    if (strcmp(api_s, "v1.0") && strcmp(api_s, "v1.1") && strcmp(api_s, "v1.2"))
        return cz_usage_error(&sdr_cmd, "--api: expected v1.0, v1.1 or v1.2, got '%s'", api_s);
    cz_fil_api_version api = !strcmp(api_s, "v1.0") ? CZ_FIL_API_1_0 : !strcmp(api_s, "v1.2") ? CZ_FIL_API_1_2 : CZ_FIL_API_1_1;
    const cz_fil_seal_proof *proof = cz_fil_seal_proof_find(
        size, api, api == CZ_FIL_API_1_2 ? CZ_FIL_CHALLENGES_NON_INTERACTIVE : CZ_FIL_CHALLENGES_INTERACTIVE);
    if (!proof || size > (512ull << 20)) {
        fprintf(stderr, "cuzk bench sdr: no in-memory sealing for %s (%s)\n", ss, api_s);
        return 2;
    }
    if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "sdr") != CZ_OK) return 1;
    cz_fil_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.proof = proof;
    sp.sector_id = 1;
    for (int i = 0; i < 32; i++) {
        sp.prover_id[i] = (uint8_t)i;
        sp.ticket[i] = (uint8_t)(3 * i + 1);
        sp.seed[i] = (uint8_t)(7 * i + 5);
    }
    size_t len = (size_t)cz_fil_unpadded_size(size);
    uint8_t *data = malloc(len);
    if (!data) return 1;
    for (size_t i = 0; i < len; i++) data[i] = (uint8_t)(i * 2654435761u >> 13);
    enum { NPH = 8 };
    static const char *names[NPH] = { "tree_d", "parent_cache", "labels", "tree_c", "encode", "tree_r", "c1", "total" };
    double *v[NPH];
    for (int k = 0; k < NPH; k++) v[k] = calloc((size_t)samples, sizeof(double));
    cz_fil_seal_result res;
    for (long s = 0; s < samples; s++) {
        cz_fil_c1 c1;
        cz_errbuf err = { { 0 } };
        double t0 = cz_now_ns();
        cz_status st = cz_fil_seal(&sp, data, len, pool, &res, &c1, &err);
        double total = (cz_now_ns() - t0) / 1e6;
        if (st != CZ_OK) {
            fprintf(stderr, "cuzk bench sdr: %s\n", err.msg);
            return 1;
        }
        cz_fil_c1_free(&c1);
        double ph[NPH] = { res.ms_tree_d, res.ms_graph, res.ms_labels, res.ms_tree_c,
                           res.ms_encode, res.ms_tree_r, res.ms_c1, total };
        for (int k = 0; k < NPH; k++) v[k][s] = ph[k];
    }
    cz_bench_report *rep = cz_bench_report_new("sdr", json);
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"proof\":\"%s\",\"nodes\":%llu,\"layers\":%u,\"threads\":%ld,\"sha256\":\"%s\"", proof->name,
             (unsigned long long)res.nodes, proof->layers, threads, cz_sha256_impl_name(cz_sha256_active_impl()));
    double med[NPH];
    for (int k = 0; k < NPH; k++) {
        med[k] = median(v[k], (int)samples);
        cz_bench_report_add(rep, names[k], med[k], "ms", k == 0 ? extra : NULL);
        free(v[k]);
    }
    cz_bench_report_add(rep, "labels_per_s", (double)res.nodes * proof->layers / (med[2] / 1e3), "labels/s", NULL);
    free(data);
    cz_pool_destroy(pool);
    return cz_bench_report_finish(rep);
}
