#include "bench_util.h"
#include "poly/ntt_x8.h"
#include "cuzk/field.h"
#include "cuzk/msm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

double cz_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cz_bench_median_ns(void (*fn)(void *arg, size_t iters), void *arg, size_t iters, int samples)
{
    if (samples < 1) samples = 1;
    if (iters < 1) iters = 1;
    double *t = calloc((size_t)samples, sizeof *t);
    if (!t) return -1;
    fn(arg, iters < 16 ? iters : 16); /* warm caches and lazy tables */
    for (int i = 0; i < samples; i++) {
        double t0 = cz_now_ns();
        fn(arg, iters);
        t[i] = (cz_now_ns() - t0) / (double)iters;
    }
    qsort(t, (size_t)samples, sizeof *t, cmp_double);
    double m = samples % 2 ? t[samples / 2] : 0.5 * (t[samples / 2 - 1] + t[samples / 2]);
    free(t);
    return m;
}

typedef struct {
    char name[96];
    char unit[24];
    double value;
    char *extra;
} row_t;

struct cz_bench_report {
    char suite[32];
    bool json;
    row_t *rows;
    size_t n, cap;
};

cz_bench_report *cz_bench_report_new(const char *suite, bool json)
{
    cz_bench_report *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    snprintf(r->suite, sizeof r->suite, "%s", suite);
    r->json = json;
    return r;
}

void cz_bench_report_add(cz_bench_report *r, const char *name, double value, const char *unit,
                         const char *extra_json)
{
    if (!r) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        row_t *rows = realloc(r->rows, cap * sizeof *rows);
        if (!rows) return;
        r->rows = rows;
        r->cap = cap;
    }
    row_t *row = &r->rows[r->n++];
    snprintf(row->name, sizeof row->name, "%s", name);
    snprintf(row->unit, sizeof row->unit, "%s", unit);
    row->value = value;
    row->extra = extra_json ? strdup(extra_json) : NULL;
    if (!r->json) {
        /* stream rows as they come so long suites show progress */
        printf("%-40s %14.3f %-8s %s\n", name, value, unit, extra_json ? extra_json : "");
        fflush(stdout);
    }
}

static void machine(char *out, size_t n)
{
    char model[128] = "unknown cpu";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) {
                    c += 2;
                    c[strcspn(c, "\n")] = 0;
                    snprintf(model, sizeof model, "%s", c);
                }
                break;
            }
        }
        fclose(f);
    }
    /* The paths that ran, not only the CPU: CUZK_NO_IFMA makes an IFMA CPU
     * run as one without it, and the MSM's and the NTT's AVX2 lanes are
     * measured choices (cz_msm_lanes_chosen, ntt_lanes.c), so a figure
     * names them. */
    double ratio;
    const char *lanes = cz_msm_lanes_chosen(&ratio);
    char lr[32] = "", nr[32] = "";
    if (ratio > 0) snprintf(lr, sizeof lr, " (measured %.2f)", ratio);
    double nratio;
    const char *ntt = cz_cli_ntt_lanes(&nratio, NULL);
    if (nratio > 0) snprintf(nr, sizeof nr, " (measured %.2f)", nratio);
    snprintf(out, n, "%s, %ld cpus, field %s, ifma %s, msm lanes %s%s, ntt %s%s", model,
             sysconf(_SC_NPROCESSORS_ONLN), cz_ff_backend_name(cz_ff_get_backend()),
             cz_ff_ifma_supported() ? "on" : "off", lanes, lr, ntt, nr);
}

const char *cz_cli_ntt_lanes(double *ratio, double *limit)
{
    const int nv = cz__ntt_v_preferred(); /* makes the choice if not yet made */
    *ratio = cz__ntt_lanes_ratio();
    if (limit) *limit = CZ_NTT_AVX2_MAX_RATIO;
    return nv == CZ_NTT_V_IFMA ? "ifma" : nv == CZ_NTT_V_AVX2 ? "avx2" : "scalar";
}

int cz_bench_report_finish(cz_bench_report *r)
{
    if (!r) return 1;
    char m[320];
    machine(m, sizeof m);
    if (r->json) {
        printf("{\"suite\":\"%s\",\"machine\":\"%s\",\"results\":[", r->suite, m);
        for (size_t i = 0; i < r->n; i++) {
            printf("%s{\"name\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"%s%s}", i ? "," : "",
                   r->rows[i].name, r->rows[i].value, r->rows[i].unit,
                   r->rows[i].extra ? "," : "", r->rows[i].extra ? r->rows[i].extra : "");
        }
        printf("]}\n");
    } else {
        printf("# suite %s on %s\n", r->suite, m);
    }
    for (size_t i = 0; i < r->n; i++) free(r->rows[i].extra);
    free(r->rows);
    free(r);
    return 0;
}
