/*
 * Benchmark helpers shared by every `cuzk bench <suite>`: a monotonic
 * clock, median-of-samples timing, and a report that prints a table (or
 * JSON with --json) with the machine named.
 */
#ifndef CZ_BENCH_UTIL_H
#define CZ_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>

double cz_now_ns(void);

/* Runs fn(arg, iters) `samples` times; returns the median of the per-op
 * times (sample time / iters) in ns. fn must perform `iters` operations. */
double cz_bench_median_ns(void (*fn)(void *arg, size_t iters), void *arg, size_t iters, int samples);

typedef struct cz_bench_report cz_bench_report;
/* suite: e.g. "field"; json: print JSON instead of a table at finish. */
cz_bench_report *cz_bench_report_new(const char *suite, bool json);
/* One row. unit: "ns/op", "ms", ...; extra_json: NULL or a JSON object body
 * fragment like "\"threads\":2,\"log_n\":16" added to the row. */
void cz_bench_report_add(cz_bench_report *r, const char *name, double value, const char *unit,
                         const char *extra_json);
/* Prints (table or JSON) to stdout, frees r; returns 0. */
int cz_bench_report_finish(cz_bench_report *r);

/* Options are parsed by opts.h (declared per command, strict). */

/* The NTT's butterflies chosen for this process ("ifma", "avx2" or
 * "scalar"; src/poly/ntt_lanes.c), measuring them first where that is
 * how they are chosen; *ratio = the AVX2 ones' time over the scalar
 * ones' as measured, 0 where nothing was measured; *limit (if not NULL)
 * the ratio at or below which they are taken. */
const char *cz_cli_ntt_lanes(double *ratio, double *limit);

#endif
