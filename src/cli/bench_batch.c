/*
 * `cuzk bench batch | single | stress`: the proving engine end to end, in
 * process (engine + the production CPU back-end, cuzk/prover.h).
 *
 * batch   N proofs of P partitions, J in flight. Reports per-proof lines,
 *         throughput (s/proof = batch wall / proofs), p50/p90/p99 of the
 *         per-partition stage times (engine records), prover busy %, CPU
 *         utilisation, sampled peak RSS against the budget's prediction,
 *         a Chrome trace (Perfetto) and a gnuplot PNG of the timeline.
 * single  the same with pipelining off: one job at a time, one synthesis
 *         worker, one prover worker and a budget of exactly one partition,
 *         so partitions run strictly one after the other (the one-shot
 *         prover's shape, with resident parameters).
 *         With --daemon ADDR the jobs go to a running cuzkd instead (J
 *         client threads, submit + await over HTTP); per-partition stage
 *         times then live in the daemon (its TIMELINE log, /metrics, and
 *         --trace fetches its /v1/trace); --daemon-pid PID samples the
 *         daemon's RSS and CPU time. Proofs are verified here against
 *         --param-dir, which must be the daemon's parameter directory.
 * stress  random priorities, cancels, duplicate request ids and bad
 *         requests against a tiny circuit; checks every accepted job ends
 *         exactly once, in the state its history implies.
 *
 * Memory prediction (printed by batch, and what tests/prover/
 * test_memory_budget.c checks):
 *   predicted peak RSS = base + params + K * (abc + rest)
 *   base   VmRSS of the process before the circuit is recorded and its
 *          parameters loaded (plus the payload bytes held by the bench);
 *   params the estimate's params_bytes (mapped parameters + recorded
 *          circuit + NTT tables), charged to the budget while resident;
 *   abc, rest  the estimate per in-flight partition;
 *   K      the in-flight bound: min(floor((budget - params) / (abc + rest)),
 *          partition_workers + channel capacity + prover workers +
 *          finalizers), the partitions that can hold a reservation at once
 *          (synthesizing or waiting to send, in the channel, proving,
 *          finishing); when the budget does not bind, a longer finalize
 *          queue can exceed the structural figure (those partitions hold
 *          only rest_bytes).
 * The engine's own accounting peak (status budget_peak) is printed too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_util.h"
#include "opts.h"
#include "commands.h"
#include "cuzk/engine.h"
#include "cuzk/prover.h"
#include "daemon/api.h"    /* base64 of payloads and proofs */
#include "daemon/client.h" /* HTTP client for --daemon */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * small helpers
 * ------------------------------------------------------------------------ */

static double mono_ms(void) { return cz_now_ns() / 1e6; }

/* A "Key:   123 kB" line of /proc/self/status, in bytes (0 if absent). */
static uint64_t proc_status_bytes_of(const char *proc, const char *key)
{
    char path[64];
    snprintf(path, sizeof path, "%s/status", proc);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    size_t kl = strlen(key);
    uint64_t v = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            v = strtoull(line + kl + 1, NULL, 10) * 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

static uint64_t proc_status_bytes(const char *key) { return proc_status_bytes_of("/proc/self", key); }

/* user + system CPU seconds of another process (/proc/PID/stat fields 14, 15). */
static double proc_cpu_seconds(const char *proc)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "%s/stat", proc);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p) return 0;
    unsigned long long ut = 0, st = 0;
    /* after ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return 0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Resets VmHWM to the current RSS (Linux >= 4.0), so setup and loading do
 * not count in the batch's peak. */
static bool reset_hwm(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return false;
    bool ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* Sums over this process's threads of the time on a CPU and the time
 * runnable but waiting for one (/proc/self/task/N/schedstat, seconds).
 * On a shared machine run + wait is what the process asked for: its CPU
 * demand, which a quiet machine would have served. */
static void sched_totals(double *run_s, double *wait_s)
{
    *run_s = *wait_s = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        unsigned long long run, wait;
        if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
            *run_s += (double)run / 1e9;
            *wait_s += (double)wait / 1e9;
        }
        fclose(f);
    }
    closedir(d);
}

/* 1-minute load average (how shared the machine was). */
static double loadavg1(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

/* "123", "512M", "2G", "1.5GiB" -> bytes; false on junk. */
static bool parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0) return false;
    double mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1024.0; break;
        case 'm': case 'M': mul = 1024.0 * 1024; break;
        case 'g': case 'G': mul = 1024.0 * 1024 * 1024; break;
        case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
        default: return false;
        }
        end++;
        if (*end == 'i' || *end == 'I') end++;
        if (*end == 'b' || *end == 'B') end++;
        if (*end) return false;
    }
    *out = (uint64_t)(v * mul);
    return true;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const double *v, size_t n, double p)
{
    if (!n) return 0;
    size_t k = (size_t)ceil(p / 100.0 * (double)n);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}

/* ------------------------------------------------------------------------
 * RSS sampler: a thread reading VmRSS every period_ms; keeps the peak and a
 * series (for the plot).
 * ------------------------------------------------------------------------ */

typedef struct {
    pthread_t th;
    atomic_bool stop;
    unsigned period_ms;
    double t0_ms; /* series times are ms since this (monotonic ms) */
    char proc[32]; /* "/proc/self" or "/proc/PID" */
    pthread_mutex_t mu;
    uint64_t peak;
    double *t;
    uint64_t *rss;
    size_t n, cap;
} rss_sampler;

static void sampler_add(rss_sampler *s, double t, uint64_t v)
{
    pthread_mutex_lock(&s->mu);
    if (v > s->peak) s->peak = v;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        double *nt = realloc(s->t, cap * sizeof *nt);
        if (nt) s->t = nt;
        uint64_t *nr = nt ? realloc(s->rss, cap * sizeof *nr) : NULL;
        if (nr) {
            s->rss = nr;
            s->cap = cap;
        }
    }
    if (s->n < s->cap) {
        s->t[s->n] = t;
        s->rss[s->n++] = v;
    }
    pthread_mutex_unlock(&s->mu);
}

static void *sampler_main(void *arg)
{
    rss_sampler *s = arg;
    pthread_setname_np(pthread_self(), "cz-rss");
    while (!atomic_load(&s->stop)) {
        sampler_add(s, mono_ms() - s->t0_ms, proc_status_bytes_of(s->proc, "VmRSS"));
        struct timespec ts = {0, (long)s->period_ms * 1000000L};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static bool sampler_start_of(rss_sampler *s, const char *proc, double t0_ms, unsigned period_ms)
{
    memset(s, 0, sizeof *s);
    snprintf(s->proc, sizeof s->proc, "%s", proc);
    pthread_mutex_init(&s->mu, NULL);
    s->t0_ms = t0_ms;
    s->period_ms = period_ms ? period_ms : 10;
    atomic_store(&s->stop, false);
    return pthread_create(&s->th, NULL, sampler_main, s) == 0;
}

static bool sampler_start(rss_sampler *s, double t0_ms, unsigned period_ms)
{
    return sampler_start_of(s, "/proc/self", t0_ms, period_ms);
}

static void sampler_stop(rss_sampler *s)
{
    atomic_store(&s->stop, true);
    pthread_join(s->th, NULL);
    sampler_add(s, mono_ms() - s->t0_ms, proc_status_bytes_of(s->proc, "VmRSS"));
}

static void sampler_free(rss_sampler *s)
{
    free(s->t);
    free(s->rss);
    pthread_mutex_destroy(&s->mu);
}

/* ------------------------------------------------------------------------
 * Job-done notifications: the engine calls on_job_done once per accepted
 * job; batch waits on them, stress counts them.
 * ------------------------------------------------------------------------ */

typedef struct {
    cz_job_id id;
    int calls;           /* on_job_done deliveries */
    cz_job_state cb_state;
    /* stress bookkeeping (set by the submitting thread) */
    bool known;          /* accepted by submit */
    bool malformed;      /* payload the back-end must refuse */
    bool cancel_ok;      /* cancel returned CZ_OK */
    bool cancel_busy;    /* cancel returned CZ_ERR_BUSY */
    cz_job_state cancel_seen; /* state cancel reported with CZ_ERR_BUSY */
    int payload_idx;     /* index into the payload table (-1: malformed) */
    uint32_t parts;
} job_slot;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* open-addressing table id -> slot */
    job_slot *slots;
    size_t cap, n;
    /* FIFO of finished ids (batch) */
    cz_job_id *fifo;
    size_t fh, ft, fcap;
    uint64_t done_count;
} job_table;

static void jt_init(job_table *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
}

static void jt_free(job_table *t)
{
    free(t->slots);
    free(t->fifo);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
}

/* Under mu. Returns the slot for id, creating it; NULL on OOM. */
static job_slot *jt_get_locked(job_table *t, cz_job_id id)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 1024;
        job_slot *ns = calloc(nc, sizeof *ns);
        if (!ns) return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].id) continue;
            size_t h = (size_t)(t->slots[i].id * 0x9E3779B97F4A7C15ULL) & (nc - 1);
            while (ns[h].id) h = (h + 1) & (nc - 1);
            ns[h] = t->slots[i];
        }
        free(t->slots);
        t->slots = ns;
        t->cap = nc;
    }
    size_t h = (size_t)(id * 0x9E3779B97F4A7C15ULL) & (t->cap - 1);
    while (t->slots[h].id && t->slots[h].id != id) h = (h + 1) & (t->cap - 1);
    if (!t->slots[h].id) {
        memset(&t->slots[h], 0, sizeof t->slots[h]);
        t->slots[h].id = id;
        t->slots[h].payload_idx = -1;
        t->n++;
    }
    return &t->slots[h];
}

static void on_done(void *arg, cz_job_id id, cz_job_state state)
{
    job_table *t = arg;
    pthread_mutex_lock(&t->mu);
    job_slot *s = jt_get_locked(t, id);
    if (s) {
        s->calls++;
        s->cb_state = state;
    }
    if (t->ft - t->fh == t->fcap) {
        size_t nc = t->fcap ? 2 * t->fcap : 256;
        cz_job_id *nf = malloc(nc * sizeof *nf);
        if (nf) {
            for (size_t i = 0; i < t->ft - t->fh; i++) nf[i] = t->fifo[(t->fh + i) % t->fcap];
            t->ft -= t->fh;
            t->fh = 0;
            free(t->fifo);
            t->fifo = nf;
            t->fcap = nc;
        }
    }
    if (t->ft - t->fh < t->fcap) t->fifo[t->ft++ % t->fcap] = id;
    t->done_count++;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

/* Next finished id (blocks up to timeout_ms); 0 on timeout. */
static cz_job_id jt_pop(job_table *t, int64_t timeout_ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&t->mu);
    while (t->ft == t->fh) {
        if (pthread_cond_timedwait(&t->cv, &t->mu, &dl) == ETIMEDOUT) break;
    }
    cz_job_id id = 0;
    if (t->ft != t->fh) id = t->fifo[t->fh++ % t->fcap];
    pthread_mutex_unlock(&t->mu);
    return id;
}

/* ------------------------------------------------------------------------
 * options and the engine under test
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *circuit;
    uint32_t parts;
    long count, conc;
    unsigned pw, wpd, lookahead, finalizers, threads;
    const char *budget;       /* "auto" | bytes */
    long budget_parts;        /* > 0: budget = params + this many partitions */
    const char *param_dir;
    const char *trace, *plot, *timeline;
    bool json;
    uint64_t seed;
} bench_opts;

/* batch and single share these; single runs one partition at a time, so
 * the concurrency options and --daemon are batch's alone */
#define BATCH_COMMON                                                                                                \
    {.name = "--circuit", .alias = "--preset", .kind = CZ_OPT_STR, .arg = "ID",                                     \
     .help = "mulchain-N (default mulchain-16384) or shaped-K"},                                                    \
        CZ_NUM("--partitions", "P", 1, 65536, "partitions per job (default 10)"),                                   \
        CZ_NUM("--count", "N", 1, 1000000, "jobs (default batch 4, single 2)"),                                     \
        CZ_NUM("--lookahead", "L", 1, 1024, "partitions synthesized ahead (default 1)"),                           \
        CZ_NUM("--finalizers", "F", 1, 64, "finalizer threads (default 1)"),                                       \
        CZ_NUM("--threads", "T", 0, 1024, "threads (0 = one per CPU, the default)"),                               \
        CZ_STR("--budget", "BYTES|auto", "memory budget (default auto)"),                                           \
        CZ_NUM("--budget-partitions", "K", 0, 65536, "budget = parameters + exactly K partitions' estimate"),       \
        CZ_STR("--param-dir", "DIR", "parameters, created when missing (default $CUZK_PARAM_DIR, else ./cuzk-params)"), \
        CZ_NUM("--seed", "S", 0, LLONG_MAX, "payload seed (default 1)"),                                           \
        CZ_STR("--timeline", "FILE", "per-partition timeline (TSV)"),                                               \
        CZ_STR("--trace", "out.json", "Chrome trace-event JSON"),                                                   \
        CZ_STR("--plot", "out.png", "timeline plot (needs python3 + matplotlib)"),                                  \
        CZ_FLAG("--json", "JSON instead of a table")

static const cz_opt batch_opts[] = {
    BATCH_COMMON,
    CZ_NUM("--concurrency", "J", 1, 1024, "jobs in flight (default 2)"),
    CZ_NUM("--partition-workers", "W", 1, 256, "partition workers (default 2)"),
    CZ_NUM("--workers-per-device", "D", 1, 64, "workers per device (default 2)"),
    CZ_STR("--daemon", "ADDR", "send the jobs to a running cuzkd instead"),
    CZ_STR("--token-file", "FILE", "with --daemon: bearer token"),
    CZ_NUM("--daemon-pid", "PID", 1, 4194304, "with --daemon: sample the daemon's RSS from /proc/PID"),
    {0},
};
static const cz_opt single_opts[] = {BATCH_COMMON, {0}};
static const cz_cmd batch_cmd = {
    .name = "cuzk bench batch",
    .synopsis = "[--count N] [--concurrency J] [--circuit mulchain-N | --preset shaped-K] [--partitions P]\n"
                "        [--partition-workers W] [--workers-per-device D] [--lookahead L] [--finalizers F]\n"
                "        [--budget BYTES|auto] [--budget-partitions K] [--param-dir DIR] [--threads T] [--seed S]\n"
                "        [--timeline FILE] [--trace out.json] [--plot out.png] [--json]\n"
                "        [--daemon ADDR [--token-file F] [--daemon-pid PID]]",
    .opts = batch_opts,
};
static const cz_cmd single_cmd = {
    .name = "cuzk bench single",
    .synopsis = "[--count N] [--circuit mulchain-N | --preset shaped-K] [--partitions P] [--lookahead L]\n"
                "        [--finalizers F] [--budget BYTES|auto] [--budget-partitions K] [--param-dir DIR] [--threads T]\n"
                "        [--seed S] [--timeline FILE] [--trace out.json] [--plot out.png] [--json]",
    .about = "  the engine with one partition at a time (pipelining off), for comparison with batch",
    .opts = single_opts,
};

/* -1 when the suite should run, else its exit status */
static int parse_opts(cz_args *oa, int argc, char **argv, bench_opts *o, bool single)
{
    int prc = cz_opts_parse(oa, single ? &single_cmd : &batch_cmd, argc, argv);
    if (prc >= 0) return prc;
    o->circuit = cz_opt_str(oa, "--circuit", "mulchain-16384");
    long parts = (long)cz_opt_num(oa, "--partitions", 10);
    o->count = (long)cz_opt_num(oa, "--count", single ? 2 : 4);
    o->conc = single ? 1 : (long)cz_opt_num(oa, "--concurrency", 2);
    long pw = single ? 1 : (long)cz_opt_num(oa, "--partition-workers", 2);
    long wpd = single ? 1 : (long)cz_opt_num(oa, "--workers-per-device", 2);
    long la = (long)cz_opt_num(oa, "--lookahead", 1);
    long fin = (long)cz_opt_num(oa, "--finalizers", 1);
    long th = (long)cz_opt_num(oa, "--threads", 0);
    o->budget = cz_opt_str(oa, "--budget", "auto");
    o->budget_parts = (long)cz_opt_num(oa, "--budget-partitions", single ? 1 : 0);
    o->param_dir = cz_opt_str(oa, "--param-dir", cz_default_param_dir());
    o->trace = cz_opt_str(oa, "--trace", NULL);
    o->plot = cz_opt_str(oa, "--plot", NULL);
    o->timeline = cz_opt_str(oa, "--timeline", NULL);
    o->json = cz_opt_flag(oa, "--json");
    o->seed = (uint64_t)cz_opt_num(oa, "--seed", 1);
    o->parts = (uint32_t)parts;
    o->pw = (unsigned)pw;
    o->wpd = (unsigned)wpd;
    o->lookahead = (unsigned)la;
    o->finalizers = (unsigned)fin;
    o->threads = (unsigned)th;
    return -1;
}

typedef struct {
    cz_engine_backend be;
    bool have_be;
    cz_engine *eng;
    cz_engine_estimate est;
    uint64_t budget;
    FILE *tl;
    job_table jt;
} rig;

static void rig_destroy(rig *r)
{
    cz_engine_destroy(r->eng);
    r->eng = NULL;
    if (r->have_be) cz_prover_backend_destroy(&r->be);
    r->have_be = false;
    if (r->tl) fclose(r->tl);
    r->tl = NULL;
    jt_free(&r->jt);
}

/* Back-end + estimate + parameters on disk (no engine yet). */
static int rig_backend(rig *r, const bench_opts *o, const char *circuit)
{
    memset(r, 0, sizeof *r);
    jt_init(&r->jt);
    cz_prover_config pc = {.param_dir = o->param_dir, .threads = o->threads, .auto_setup = true, .log = stderr};
    cz_errbuf e = {{0}};
    if (cz_prover_backend_create(&r->be, &pc, &e) != CZ_OK) {
        fprintf(stderr, "cuzk bench: back-end: %s\n", e.msg);
        return 1;
    }
    r->have_be = true;
    char msg[320] = "";
    cz_status st = r->be.estimate(r->be.ctx, circuit, &r->est, msg, sizeof msg);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk bench: circuit %s: %s (%s)\n", circuit, msg, cz_status_str(st));
        return 1;
    }
    if (cz_prover_ensure_params(&r->be, circuit, NULL, &e) != CZ_OK) {
        fprintf(stderr, "cuzk bench: parameters of %s: %s\n", circuit, e.msg);
        return 1;
    }
    return 0;
}

static uint64_t part_bytes(const rig *r) { return r->est.abc_bytes + r->est.rest_bytes; }

static int rig_engine(rig *r, const bench_opts *o, bool stress)
{
    cz_engine_config cfg;
    cz_engine_config_default(&cfg);
    cfg.partition_workers = o->pw;
    cfg.synthesis_lookahead = o->lookahead;
    cfg.workers_per_device = o->wpd;
    cfg.finalizers = o->finalizers;
    cfg.backend = r->be;
    cfg.on_job_done = on_done;
    cfg.on_job_done_arg = &r->jt;
    if (stress) cfg.result_retention_count = (size_t)1 << 20; /* expectations need every job retained */
    if (o->budget_parts > 0) {
        cfg.memory_budget = r->est.params_bytes + (uint64_t)o->budget_parts * part_bytes(r);
    } else if (strcasecmp(o->budget, "auto") != 0) {
        if (!parse_bytes(o->budget, &cfg.memory_budget) || !cfg.memory_budget) {
            fprintf(stderr, "cuzk bench: --budget: expected bytes (e.g. 512M, 4G) or auto, got '%s'\n", o->budget);
            return 2;
        }
    }
    if (o->timeline) {
        r->tl = fopen(o->timeline, "w");
        if (!r->tl) {
            fprintf(stderr, "cuzk bench: %s: %s\n", o->timeline, strerror(errno));
            return 1;
        }
        cfg.timeline_file = r->tl;
    }
    char msg[320] = "";
    if (cz_engine_create(&r->eng, &cfg, msg, sizeof msg) != CZ_OK) {
        fprintf(stderr, "cuzk bench: engine: %s\n", msg);
        return 1;
    }
    r->budget = cz_engine_budget(r->eng);
    return 0;
}

/* ------------------------------------------------------------------------
 * plot (gnuplot)
 * ------------------------------------------------------------------------ */

static bool have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* One row per worker (synthesis, prover, finalizer), a box per stage, and
 * RSS over time below with the predicted peak. */
static int write_plot(const char *png, const cz_engine_part_record *rec, size_t n, const cz_engine_status *st,
                      const rss_sampler *rs, double t_begin, double predicted, double accounted)
{
    if (!have_gnuplot()) {
        fprintf(stderr, "cuzk bench: gnuplot not found: skipping the PNG plot (install gnuplot-nox)\n");
        return 0;
    }
    char dat[] = "/tmp/cz_bench_plot_XXXXXX";
    int fd = mkstemp(dat);
    if (fd < 0) return 1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(dat);
        return 1;
    }
    unsigned ns = st->partition_workers, np = st->prover_workers, nf = st->finalizers;
    /* block 0: synth, 1: prove_start, 2: finish; columns: x_center y half_w half_h */
    for (int blk = 0; blk < 3; blk++) {
        for (size_t i = 0; i < n; i++) {
            const cz_engine_part_record *p = &rec[i];
            double a, b;
            int row;
            if (blk == 0) {
                if (p->synth_worker < 0 || p->synth_end_ms <= 0) continue;
                a = p->synth_start_ms, b = p->synth_end_ms, row = p->synth_worker;
            } else if (blk == 1) {
                if (p->prover_worker < 0 || p->prove_end_ms <= 0) continue;
                a = p->prove_start_ms, b = p->prove_end_ms, row = (int)ns + p->prover_worker;
            } else {
                if (p->finalizer < 0 || p->finish_end_ms <= 0) continue;
                a = p->finish_start_ms, b = p->finish_end_ms, row = (int)(ns + np) + p->finalizer;
            }
            a = (a - t_begin) / 1e3;
            b = (b - t_begin) / 1e3;
            fprintf(f, "%.4f %d %.4f 0.35\n", (a + b) / 2, row, (b - a) / 2);
        }
        fprintf(f, "-1 -1 0 0\n\n\n"); /* keep every block non-empty */
    }
    double xmax = 0.001;
    for (size_t i = 0; i < rs->n; i++) {
        fprintf(f, "%.4f %.3f\n", rs->t[i] / 1e3, mib(rs->rss[i]));
        if (rs->t[i] / 1e3 > xmax) xmax = rs->t[i] / 1e3;
    }
    fclose(f);
    FILE *g = popen("gnuplot 2>&1", "w");
    if (!g) {
        unlink(dat);
        return 1;
    }
    fprintf(g, "set terminal pngcairo size 1400,%u noenhanced font ',10'\n", 420 + 28 * (ns + np + nf));
    fprintf(g, "set output '%s'\n", png);
    fprintf(g, "set multiplot layout 2,1 title 'cuzk bench batch: engine timeline'\n");
    fprintf(g, "set xlabel 'seconds since batch start'\nset xrange [0:%.3f]\n", xmax);
    fprintf(g, "set lmargin at screen 0.07\nset rmargin at screen 0.84\n"); /* aligned panels */
    fprintf(g, "set yrange [-0.6:%u.6]\nset ytics (", ns + np + nf - 1);
    for (unsigned i = 0; i < ns + np + nf; i++) {
        const char *k = i < ns ? "synth" : i < ns + np ? "prover" : "finish";
        unsigned idx = i < ns ? i : i < ns + np ? i - ns : i - ns - np;
        fprintf(g, "%s\"%s %u\" %u", i ? ", " : "", k, idx, i);
    }
    fprintf(g, ")\nset grid x\nset key outside right\nset style fill solid 0.8 border -1\n");
    fprintf(g, "plot '%s' index 0 using 1:2:3:4 with boxxyerror lc rgb '#4a90d9' title 'synthesize', \\\n"
               "     '' index 1 using 1:2:3:4 with boxxyerror lc rgb '#d9534f' title 'prove_start', \\\n"
               "     '' index 2 using 1:2:3:4 with boxxyerror lc rgb '#5cb85c' title 'prove_finish'\n",
            dat);
    fprintf(g, "set yrange [0:*]\nset ytics auto\nset ylabel 'RSS (MiB)'\n");
    fprintf(g, "plot '%s' index 3 using 1:2 with lines lw 2 lc rgb '#333333' title 'VmRSS (sampled)', \\\n"
               "     %.3f with lines dt 2 lc rgb '#d9534f' title 'predicted peak', \\\n"
               "     %.3f with lines dt 3 lc rgb '#4a90d9' title 'budget accounting peak + base'\n",
            dat, mib((uint64_t)predicted), mib((uint64_t)accounted));
    fprintf(g, "unset multiplot\n");
    int rc = pclose(g);
    unlink(dat);
    if (rc != 0) {
        fprintf(stderr, "cuzk bench: gnuplot failed (exit %d); no plot written\n", rc);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * batch / single
 * ------------------------------------------------------------------------ */

typedef struct {
    cz_job_id id;
    uint8_t *payload;
    size_t payload_len;
    cz_job_state state;
    char error[400];
    double queued_ms, total_ms;
    uint8_t *proof;
    size_t proof_len;
    bool verified;
} proof_row;

/* ------------------------------------------------------------------------
 * batch against a running cuzkd (--daemon ADDR)
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *addr, *token, *circuit;
    uint32_t parts;
    proof_row *rows;
    size_t n;
    atomic_size_t next;
    atomic_size_t finished;
    bool quiet;
} daemon_run;

/* One job: submit, then await until terminal. Fills the row. */
static void daemon_one(daemon_run *d, proof_row *p)
{
    cz_errbuf e = {{0}};
    cz_http_response r = {0};
    size_t b64n = 0;
    char *b64 = NULL;
    if (cz_base64_encode(p->payload, p->payload_len, &b64, &b64n) != CZ_OK) b64 = NULL;
    json_t *o = json_object();
    char *body = NULL;
    p->state = CZ_JOB_FAILED;
    if (!b64 || !o) {
        snprintf(p->error, sizeof p->error, "out of memory");
        goto out;
    }
    json_object_set_new(o, "circuit", json_string(d->circuit));
    json_object_set_new(o, "partitions", json_integer(d->parts));
    json_object_set_new(o, "payload_b64", json_stringn(b64, b64n));
    body = json_dumps(o, JSON_COMPACT);
    if (!body || cz_http_call(d->addr, d->token, "POST", "/v1/jobs", body, strlen(body), 60000, &r, &e) != CZ_OK) {
        snprintf(p->error, sizeof p->error, "submit: %s", body ? e.msg : "out of memory");
        goto out;
    }
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    json_t *id = j ? json_object_get(j, "id") : NULL;
    if (r.status / 100 != 2 || !json_is_integer(id)) {
        json_t *er = j ? json_object_get(j, "error") : NULL;
        snprintf(p->error, sizeof p->error, "submit refused (HTTP %d): %.300s", r.status,
                 json_is_string(er) ? json_string_value(er) : r.body);
        json_decref(j);
        goto out;
    }
    p->id = (cz_job_id)json_integer_value(id);
    json_decref(j);
    for (;;) {
        char path[96];
        snprintf(path, sizeof path, "/v1/jobs/%" PRIu64 "/await?timeout_ms=30000", (uint64_t)p->id);
        cz_http_response_free(&r);
        memset(&r, 0, sizeof r);
        if (cz_http_call(d->addr, d->token, "POST", path, NULL, 0, 90000, &r, &e) != CZ_OK) {
            snprintf(p->error, sizeof p->error, "await: %s", e.msg);
            goto out;
        }
        j = json_loadb(r.body, r.len, 0, NULL);
        const char *state = j ? json_string_value(json_object_get(j, "state")) : NULL;
        if (r.status != 200 || !state) {
            snprintf(p->error, sizeof p->error, "await (HTTP %d): %.300s", r.status, r.body);
            json_decref(j);
            goto out;
        }
        if (json_is_true(json_object_get(j, "timed_out"))) {
            json_decref(j);
            continue;
        }
        p->queued_ms = json_real_value(json_object_get(j, "queued_ms"));
        p->total_ms = json_real_value(json_object_get(j, "total_ms"));
        json_t *pr = json_object_get(j, "proof_b64");
        if (!strcmp(state, "done") && json_is_string(pr) &&
            cz_base64_decode(json_string_value(pr), json_string_length(pr), &p->proof, &p->proof_len) == CZ_OK) {
            p->state = CZ_JOB_DONE;
        } else {
            json_t *er = json_object_get(j, "error");
            p->state = !strcmp(state, "cancelled") ? CZ_JOB_CANCELLED : CZ_JOB_FAILED;
            snprintf(p->error, sizeof p->error, "%s: %.300s", state,
                     json_is_string(er) ? json_string_value(er) : "no proof in the reply");
        }
        json_decref(j);
        break;
    }
out:
    cz_http_response_free(&r);
    free(body);
    json_decref(o);
    free(b64);
}

static void *daemon_worker(void *arg)
{
    daemon_run *d = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&d->next, 1);
        if (i >= d->n) break;
        daemon_one(d, &d->rows[i]);
        size_t f = atomic_fetch_add(&d->finished, 1) + 1;
        if (!d->quiet)
            fprintf(stderr, "[%zu/%zu] job %" PRIu64 " %s after %.0f ms\n", f, d->n, (uint64_t)d->rows[i].id,
                    cz_job_state_str(d->rows[i].state), d->rows[i].total_ms);
    }
    return NULL;
}

static int run_batch_daemon(const cz_args *oa, const bench_opts *o, const char *addr)
{
    const char *token = NULL;
    char tokbuf[512] = "";
    const char *tf = cz_opt_str(oa, "--token-file", NULL);
    if (tf) {
        FILE *f = fopen(tf, "r");
        if (!f || !fgets(tokbuf, sizeof tokbuf, f)) {
            fprintf(stderr, "cuzk bench: --token-file %s: cannot read\n", tf);
            if (f) fclose(f);
            return 2;
        }
        fclose(f);
        tokbuf[strcspn(tokbuf, "\r\n")] = 0;
        token = tokbuf;
    }
    long dpid = (long)cz_opt_num(oa, "--daemon-pid", 0);
    char proc[32] = "";
    if (dpid > 0) snprintf(proc, sizeof proc, "/proc/%ld", dpid);
    /* a local back-end only for payloads and the offline verification;
     * no setup here: the parameters must be the daemon's */
    cz_engine_backend be;
    cz_prover_config pc = {.param_dir = o->param_dir, .threads = o->threads, .auto_setup = false, .log = stderr};
    cz_errbuf e = {{0}};
    if (cz_prover_backend_create(&be, &pc, &e) != CZ_OK) {
        fprintf(stderr, "cuzk bench: back-end: %s\n", e.msg);
        return 1;
    }
    int rc = 0;
    size_t n = (size_t)o->count;
    proof_row *rows = calloc(n, sizeof *rows);
    for (size_t i = 0; rows && i < n; i++) {
        if (cz_prover_sample_payload(&be, o->circuit, o->parts, o->seed + i, &rows[i].payload, &rows[i].payload_len,
                                     &e) != CZ_OK) {
            fprintf(stderr, "cuzk bench: payload: %s\n", e.msg);
            rc = 1;
            goto out;
        }
    }
    if (!rows) {
        rc = 1;
        goto out;
    }
    daemon_run d = {.addr = addr, .token = token, .circuit = o->circuit, .parts = o->parts, .rows = rows, .n = n,
                    .quiet = o->json};
    atomic_store(&d.next, 0);
    atomic_store(&d.finished, 0);
    size_t nth = (size_t)o->conc < n ? (size_t)o->conc : n;
    pthread_t *th = calloc(nth, sizeof *th);
    if (!th) {
        rc = 1;
        goto out;
    }
    rss_sampler rs;
    bool sampling = false;
    double t0 = mono_ms(), dcpu0 = *proc ? proc_cpu_seconds(proc) : 0;
    if (*proc) sampling = sampler_start_of(&rs, proc, t0, 10);
    size_t started = 0;
    for (; started < nth; started++)
        if (pthread_create(&th[started], NULL, daemon_worker, &d) != 0) break;
    if (!started) daemon_worker(&d);
    for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    free(th);
    double wall = mono_ms() - t0, dcpu = *proc ? proc_cpu_seconds(proc) - dcpu0 : 0;
    if (sampling) sampler_stop(&rs);
    size_t failures = 0, done = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].state == CZ_JOB_DONE) {
            done++;
            rows[i].verified = cz_prover_verify(&be, o->circuit, NULL, rows[i].payload, rows[i].payload_len, o->parts,
                                                rows[i].proof, rows[i].proof_len, &e) == CZ_OK;
            if (!rows[i].verified) snprintf(rows[i].error, sizeof rows[i].error, "verify: %s", e.msg);
        }
        if (!rows[i].verified) failures++;
    }
    cz_bench_report *rep = cz_bench_report_new("batch", o->json);
    char extra[768];
    for (size_t i = 0; i < n; i++) {
        for (char *c = rows[i].error; *c; c++) /* keep the JSON valid */
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '\'';
        char name[64];
        snprintf(name, sizeof name, "proof %" PRIu64, (uint64_t)rows[i].id);
        snprintf(extra, sizeof extra,
                 "\"job\":%" PRIu64 ",\"partitions\":%u,\"queued_ms\":%.1f,\"state\":\"%s\",\"verified\":%s%s%s%s",
                 (uint64_t)rows[i].id, o->parts, rows[i].queued_ms, cz_job_state_str(rows[i].state),
                 rows[i].verified ? "true" : "false", rows[i].verified ? "" : ",\"error\":\"",
                 rows[i].verified ? "" : rows[i].error, rows[i].verified ? "" : "\"");
        cz_bench_report_add(rep, name, rows[i].total_ms, "ms", extra);
    }
    snprintf(extra, sizeof extra,
             "\"circuit\":\"%s\",\"proofs\":%zu,\"partitions\":%u,\"concurrency\":%ld,\"daemon\":\"%s\","
             "\"wall_s\":%.3f",
             o->circuit, n, o->parts, o->conc, addr, wall / 1e3);
    cz_bench_report_add(rep, "throughput (batch wall / proofs)", wall / 1e3 / (double)n, "s/proof", extra);
    cz_bench_report_add(rep, "partition throughput", wall / 1e3 / (double)(n * o->parts), "s/part", NULL);
    if (*proc) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        snprintf(extra, sizeof extra, "\"cpu_s\":%.2f,\"cpus\":%ld,\"pid\":%ld", dcpu, ncpu, dpid);
        cz_bench_report_add(rep, "daemon CPU utilisation (user+sys / wall x cpus)",
                            wall > 0 ? 100.0 * dcpu / (wall / 1e3 * (double)ncpu) : 0, "%", extra);
        cz_bench_report_add(rep, "daemon peak RSS (sampled VmRSS)", mib(sampling ? rs.peak : 0), "MiB", NULL);
        cz_bench_report_add(rep, "daemon VmHWM (process lifetime)", mib(proc_status_bytes_of(proc, "VmHWM")), "MiB",
                            NULL);
    }
    snprintf(extra, sizeof extra, "\"verified\":%zu,\"done\":%zu", n - failures, done);
    cz_bench_report_add(rep, "failed or unverified proofs", (double)failures, "proofs", extra);
    cz_bench_report_finish(rep);
    if (!o->json)
        printf("# daemon %s: stage times are in its TIMELINE log and /metrics%s\n", addr,
               *proc ? "" : "; --daemon-pid PID adds its RSS and CPU");
    if (o->trace) {
        cz_http_response r = {0};
        FILE *f = NULL;
        if (cz_http_call(addr, token, "GET", "/v1/trace", NULL, 0, 60000, &r, &e) != CZ_OK || r.status != 200 ||
            !(f = fopen(o->trace, "w")) || fwrite(r.body, 1, r.len, f) != r.len) {
            fprintf(stderr, "cuzk bench: cannot fetch the daemon's trace into %s\n", o->trace);
            rc = 1;
        }
        if (f && fclose(f) != 0) rc = 1;
        cz_http_response_free(&r);
    }
    if (o->plot) fprintf(stderr, "cuzk bench: --plot needs the in-process engine's records; skipped with --daemon\n");
    if (sampling) sampler_free(&rs);
    if (failures) rc = 1;
out:
    for (size_t i = 0; rows && i < n; i++) {
        free(rows[i].payload);
        free(rows[i].proof);
    }
    free(rows);
    cz_prover_backend_destroy(&be);
    return rc;
}

static int run_batch(int argc, char **argv, bool single)
{
    bench_opts o;
    cz_args oa;
    int rc = parse_opts(&oa, argc, argv, &o, single);
    if (rc >= 0) return rc;
    const char *daemon = single ? NULL : cz_opt_str(&oa, "--daemon", NULL);
    if (!daemon && (cz_opt_given(&oa, "--token-file") || cz_opt_given(&oa, "--daemon-pid")))
        return cz_usage_error(&batch_cmd, "--token-file and --daemon-pid need --daemon");
    if (daemon) return run_batch_daemon(&oa, &o, daemon);
    /* Big buffers (a/b/c, witness) must go back to the OS when freed, or
     * RSS keeps the high-water mark of the heap instead of following the
     * budget: pin the mmap threshold (glibc otherwise raises it after the
     * first large free, up to 32 MiB, and serves later buffers from arenas). */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    rig r;
    uint64_t base = proc_status_bytes("VmRSS");
    rc = rig_backend(&r, &o, o.circuit);
    if (rc) {
        rig_destroy(&r);
        return rc;
    }
    size_t n = (size_t)o.count;
    proof_row *rows = calloc(n, sizeof *rows);
    uint64_t payload_total = 0;
    for (size_t i = 0; rows && i < n; i++) {
        cz_errbuf e = {{0}};
        if (cz_prover_sample_payload(&r.be, o.circuit, o.parts, o.seed + i, &rows[i].payload, &rows[i].payload_len,
                                     &e) != CZ_OK) {
            fprintf(stderr, "cuzk bench: payload: %s\n", e.msg);
            rc = 1;
            goto out;
        }
        payload_total += rows[i].payload_len;
    }
    if (!rows) {
        rc = 1;
        goto out;
    }
    base += payload_total;
    if ((rc = rig_engine(&r, &o, false)) != 0) goto out;
    char msg[320] = "";
    if (cz_engine_preload(r.eng, o.circuit, msg, sizeof msg) != CZ_OK) {
        fprintf(stderr, "cuzk bench: preload %s: %s\n", o.circuit, msg);
        rc = 1;
        goto out;
    }
    uint64_t pb = part_bytes(&r);
    cz_engine_status st0;
    cz_engine_get_status(r.eng, &st0);
    uint64_t k_budget = r.budget > r.est.params_bytes ? (r.budget - r.est.params_bytes) / pb : 0;
    uint64_t k_struct = (uint64_t)st0.partition_workers + st0.channel_capacity + st0.prover_workers + st0.finalizers;
    uint64_t k = k_budget < k_struct ? k_budget : k_struct;
    double predicted = (double)(base + r.est.params_bytes + k * pb);

    if (!o.json)
        printf("# %s: %ld proofs x %u partitions of %s, %ld in flight, partition_workers %u, provers %u, "
               "budget %.1f MiB (params %.1f MiB + %.1f MiB/partition: abc %.1f + rest %.1f)\n",
               single ? "single" : "batch", o.count, o.parts, o.circuit, o.conc, st0.partition_workers,
               st0.prover_workers, mib(r.budget), mib(r.est.params_bytes), mib(pb), mib(r.est.abc_bytes),
               mib(r.est.rest_bytes));
    /* the batch: keep J in flight */
    double load0 = loadavg1();
    bool hwm_reset = reset_hwm();
    uint64_t rss_start = proc_status_bytes("VmRSS");
    double t0 = mono_ms();
    /* engine-relative origin for the plot: records are ms since engine start */
    double eng_t0 = (double)st0.uptime_ms;
    rss_sampler rs;
    bool sampling = sampler_start(&rs, t0, 10);
    double cpu0 = cpu_seconds(), run0, wait0;
    sched_totals(&run0, &wait0);
    size_t submitted = 0, finished = 0, inflight = 0;
    while (finished < n) {
        while (inflight < (size_t)o.conc && submitted < n) {
            proof_row *p = &rows[submitted];
            cz_job_request rq = {.circuit_id = o.circuit, .payload = p->payload, .payload_len = p->payload_len,
                                 .num_partitions = o.parts, .priority = CZ_PRIO_NORMAL};
            cz_status st = cz_engine_submit(r.eng, &rq, &p->id, NULL, msg, sizeof msg);
            if (st != CZ_OK) {
                fprintf(stderr, "cuzk bench: submit: %s (%s)\n", msg, cz_status_str(st));
                p->state = CZ_JOB_FAILED;
                snprintf(p->error, sizeof p->error, "refused: %s", msg);
                finished++;
            } else {
                inflight++;
            }
            submitted++;
        }
        if (finished >= n) break;
        cz_job_id id = jt_pop(&r.jt, 1000);
        if (!id) continue;
        size_t i = 0;
        while (i < submitted && rows[i].id != id) i++;
        if (i == submitted) continue;
        cz_job_result res;
        if (cz_engine_await(r.eng, id, -1, &res) != CZ_OK) {
            rows[i].state = CZ_JOB_FAILED;
            snprintf(rows[i].error, sizeof rows[i].error, "await failed");
        } else {
            rows[i].state = res.state;
            snprintf(rows[i].error, sizeof rows[i].error, "%s", res.error);
            rows[i].queued_ms = res.queued_ms;
            rows[i].total_ms = res.total_ms;
            rows[i].proof = res.proof;
            rows[i].proof_len = res.proof_len;
            res.proof = NULL;
            cz_job_result_free(&res);
        }
        inflight--;
        finished++;
        if (!o.json)
            fprintf(stderr, "[%zu/%zu] job %" PRIu64 " %s after %.0f ms\n", finished, n, (uint64_t)id,
                    cz_job_state_str(rows[i].state), rows[i].total_ms);
    }
    double t1 = mono_ms();
    double cpu1 = cpu_seconds(), run1, wait1;
    sched_totals(&run1, &wait1);
    if (sampling) sampler_stop(&rs);
    uint64_t hwm = proc_status_bytes("VmHWM");
    double wall = t1 - t0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* every partition retired (a job ends before its last one is), so the
     * status and the records below cover the whole batch */
    if (cz_engine_wait_idle(r.eng, 600000) != CZ_OK) fprintf(stderr, "bench batch: the engine did not go idle\n");
    cz_engine_status st;
    cz_engine_get_status(r.eng, &st);

    /* stage statistics from the partition records of this batch */
    size_t nrec = cz_engine_get_records(r.eng, NULL, 0);
    cz_engine_part_record *rec = calloc(nrec ? nrec : 1, sizeof *rec);
    nrec = rec ? cz_engine_get_records(r.eng, rec, nrec) : 0;
    double *sy = calloc(nrec + 1, sizeof *sy), *ps = calloc(nrec + 1, sizeof *ps), *fi = calloc(nrec + 1, sizeof *fi);
    size_t nsy = 0, nps = 0, nfi = 0;
    for (size_t i = 0; sy && ps && fi && i < nrec; i++) {
        if (rec[i].status != CZ_OK) continue;
        if (rec[i].synth_end_ms > 0) sy[nsy++] = rec[i].synth_end_ms - rec[i].synth_start_ms;
        if (rec[i].prove_end_ms > 0) ps[nps++] = rec[i].prove_end_ms - rec[i].prove_start_ms;
        if (rec[i].finish_end_ms > 0) fi[nfi++] = rec[i].finish_end_ms - rec[i].finish_start_ms;
    }
    if (sy) qsort(sy, nsy, sizeof *sy, cmp_d);
    if (ps) qsort(ps, nps, sizeof *ps, cmp_d);
    if (fi) qsort(fi, nfi, sizeof *fi, cmp_d);

    /* independent verification of every proof (outside the timed batch) */
    size_t failures = 0, done = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].state == CZ_JOB_DONE) {
            done++;
            cz_errbuf e = {{0}};
            rows[i].verified = cz_prover_verify(&r.be, o.circuit, NULL, rows[i].payload, rows[i].payload_len, o.parts,
                                                rows[i].proof, rows[i].proof_len, &e) == CZ_OK;
            if (!rows[i].verified) snprintf(rows[i].error, sizeof rows[i].error, "verify: %s", e.msg);
        }
        if (!rows[i].verified) failures++;
    }

    cz_bench_report *rep = cz_bench_report_new(single ? "single" : "batch", o.json);
    char extra[768];
    for (size_t i = 0; i < n; i++) {
        char name[64];
        for (char *c = rows[i].error; *c; c++) /* keep the JSON valid */
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '\'';
        snprintf(name, sizeof name, "proof %" PRIu64, (uint64_t)rows[i].id);
        snprintf(extra, sizeof extra,
                 "\"job\":%" PRIu64 ",\"partitions\":%u,\"queued_ms\":%.1f,\"state\":\"%s\",\"verified\":%s%s%s%s",
                 (uint64_t)rows[i].id, o.parts, rows[i].queued_ms, cz_job_state_str(rows[i].state),
                 rows[i].verified ? "true" : "false", rows[i].verified ? "" : ",\"error\":\"",
                 rows[i].verified ? "" : rows[i].error, rows[i].verified ? "" : "\"");
        cz_bench_report_add(rep, name, rows[i].total_ms, "ms", extra);
    }
    snprintf(extra, sizeof extra,
             "\"circuit\":\"%s\",\"proofs\":%zu,\"partitions\":%u,\"concurrency\":%ld,\"partition_workers\":%u,"
             "\"prover_workers\":%u,\"threads\":%u,\"wall_s\":%.3f",
             o.circuit, n, o.parts, o.conc, st.partition_workers, st.prover_workers, o.threads, wall / 1e3);
    cz_bench_report_add(rep, "throughput (batch wall / proofs)", wall / 1e3 / (double)n, "s/proof", extra);
    cz_bench_report_add(rep, "partition throughput", wall / 1e3 / (double)(n * o.parts), "s/part", NULL);
    const char *sname[3] = {"synthesize", "prove_start", "prove_finish"};
    double *sv[3] = {sy, ps, fi};
    size_t sn[3] = {nsy, nps, nfi};
    for (int s = 0; s < 3; s++) {
        char name[64];
        double pp[3] = {50, 90, 99};
        for (int q = 0; q < 3; q++) {
            snprintf(name, sizeof name, "%s p%.0f", sname[s], pp[q]);
            snprintf(extra, sizeof extra, "\"samples\":%zu", sn[s]);
            cz_bench_report_add(rep, name, sv[s] ? pct(sv[s], sn[s], pp[q]) : 0, "ms", extra);
        }
    }
    double busy = wall > 0 ? 100.0 * st.device_busy_ms / (wall * (st.devices ? st.devices : 1)) : 0;
    {
        double dem = wall > 0 ? 100.0 * ((run1 - run0) + (wait1 - wait0)) / (wall / 1e3 * (double)ncpu) : 0;
        snprintf(extra, sizeof extra, "\"run_s\":%.2f,\"runqueue_wait_s\":%.2f", run1 - run0, wait1 - wait0);
        cz_bench_report_add(rep, "CPU demand (run + runqueue wait) / wall x cpus", dem, "%", extra);
    }
    cz_bench_report_add(rep, "CPU time per proof (user+sys / proofs)", (cpu1 - cpu0) / (double)n, "cpu-s", NULL);
    cz_bench_report_add(rep, "prover busy (device lock held / wall)", busy, "%", NULL);
    snprintf(extra, sizeof extra, "\"cpu_s\":%.2f,\"cpus\":%ld,\"loadavg_start\":%.2f,\"loadavg_end\":%.2f",
             cpu1 - cpu0, ncpu, load0, loadavg1());
    cz_bench_report_add(rep, "CPU utilisation (user+sys / wall x cpus)",
                        wall > 0 ? 100.0 * (cpu1 - cpu0) / (wall / 1e3 * (double)ncpu) : 0, "%", extra);
    double accounted = (double)(base + st.budget_peak);
    snprintf(extra, sizeof extra,
             "\"base_mib\":%.1f,\"params_mib\":%.1f,\"partition_mib\":%.2f,\"K\":%" PRIu64
             ",\"k_budget\":%" PRIu64 ",\"k_structural\":%" PRIu64 ",\"inflight_peak\":%" PRIu64,
             mib(base), mib(r.est.params_bytes), mib(pb), k, k_budget, k_struct, st.partitions_inflight_peak);
    cz_bench_report_add(rep, "predicted peak RSS (base+params+K*part)", mib((uint64_t)predicted), "MiB", extra);
    cz_bench_report_add(rep, "budget accounting peak + base", mib((uint64_t)accounted), "MiB", NULL);
    snprintf(extra, sizeof extra, "\"rss_at_start_mib\":%.1f,\"samples\":%zu,\"vs_predicted\":%.3f", mib(rss_start),
             sampling ? rs.n : 0, predicted > 0 ? (double)(sampling ? rs.peak : 0) / predicted : 0);
    cz_bench_report_add(rep, "peak RSS (sampled VmRSS)", mib(sampling ? rs.peak : 0), "MiB", extra);
    snprintf(extra, sizeof extra, "\"reset_before_batch\":%s,\"vs_predicted\":%.3f", hwm_reset ? "true" : "false",
             predicted > 0 ? (double)hwm / predicted : 0);
    cz_bench_report_add(rep, "peak RSS (VmHWM)", mib(hwm), "MiB", extra);
    snprintf(extra, sizeof extra, "\"verified\":%zu,\"done\":%zu", n - failures, done);
    cz_bench_report_add(rep, "failed or unverified proofs", (double)failures, "proofs", extra);
    cz_bench_report_finish(rep);
    if (!o.json) {
        printf("# predicted peak RSS = base %.1f + params %.1f + K %" PRIu64 " x %.2f MiB/partition; "
               "K = min(budget room %" PRIu64 ", structural %" PRIu64 " = partition_workers + channel + provers + "
               "finalizers; a longer finalize queue can exceed it, each extra partition holding only rest)\n",
               mib(base), mib(r.est.params_bytes), k, mib(pb), k_budget, k_struct);
        printf("# in-flight peak %" PRIu64 " partitions, channel peak %" PRIu64 ", budget peak %.1f MiB of %.1f\n",
               st.partitions_inflight_peak, st.channel_peak, mib(st.budget_peak), mib(r.budget));
    }

    if (o.trace) {
        FILE *f = fopen(o.trace, "w");
        if (!f || cz_engine_write_chrome_trace(r.eng, f) != CZ_OK) {
            fprintf(stderr, "cuzk bench: cannot write the trace %s\n", o.trace);
            rc = 1;
        }
        if (f && fclose(f) != 0) rc = 1;
        if (!rc && !o.json) printf("# Chrome trace (open in https://ui.perfetto.dev): %s\n", o.trace);
    }
    if (o.plot && sampling) {
        if (write_plot(o.plot, rec, nrec, &st, &rs, eng_t0, predicted, accounted) != 0) rc = 1;
        else if (!o.json && have_gnuplot()) printf("# timeline plot: %s\n", o.plot);
    }
    if (sampling) sampler_free(&rs);
    free(rec);
    free(sy);
    free(ps);
    free(fi);
    if (failures) rc = 1;
out:
    rig_destroy(&r);
    for (size_t i = 0; rows && i < n; i++) {
        free(rows[i].payload);
        free(rows[i].proof);
    }
    free(rows);
    return rc;
}

int cz_bench_batch(int argc, char **argv) { return run_batch(argc, argv, false); }
int cz_bench_single(int argc, char **argv) { return run_batch(argc, argv, true); }

/* ------------------------------------------------------------------------
 * stress
 * ------------------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef struct {
    char rid[32];
    bool used;
    cz_job_id id;
    int payload_idx;
    uint32_t parts;
} rid_entry;

static const cz_opt stress_opts[] = {
    CZ_NUM("--seconds", "S", 1, 86400, "run for S seconds (default 10)"),
    CZ_NUM("--count", "N", 1, 100000000, "or submit N jobs"),
    CZ_STR("--circuit", "mulchain-N", "the circuit (default mulchain-64)"),
    CZ_NUM("--max-partitions", "P", 1, 64, "partitions per job at most (default 4)"),
    CZ_NUM("--partition-workers", "W", 1, 64, "partition workers (default 2)"),
    CZ_NUM("--in-flight", "J", 1, 100000, "jobs outstanding at most (default 32)"),
    CZ_NUM("--threads", "T", 0, 1024, "threads (0 = one per CPU, the default)"),
    CZ_NUM("--seed", "S", 0, LLONG_MAX, "random seed (default: the time; printed to reproduce)"),
    CZ_STR("--param-dir", "DIR", "parameters (default $CUZK_PARAM_DIR, else ./cuzk-params)"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd stress_cmd = {
    .name = "cuzk bench stress",
    .synopsis = "[--seconds S | --count N] [--circuit mulchain-N] [--max-partitions P] [--partition-workers W]\n"
                "        [--in-flight J] [--threads T] [--seed S] [--param-dir DIR] [--json]",
    .about = "  engine stress: random priorities, cancels, duplicate ids, bad requests",
    .opts = stress_opts,
};

int cz_bench_stress(int argc, char **argv)
{
    bench_opts o;
    memset(&o, 0, sizeof o);
    cz_args oa;
    int prc = cz_opts_parse(&oa, &stress_cmd, argc, argv);
    if (prc >= 0) return prc;
    o.circuit = cz_opt_str(&oa, "--circuit", "mulchain-64");
    o.param_dir = cz_opt_str(&oa, "--param-dir", cz_default_param_dir());
    o.json = cz_opt_flag(&oa, "--json");
    o.seed = (uint64_t)cz_opt_num(&oa, "--seed", (long long)time(NULL));
    long seconds = (long)cz_opt_num(&oa, "--seconds", 0);
    long count = (long)cz_opt_num(&oa, "--count", 0);
    long maxp = (long)cz_opt_num(&oa, "--max-partitions", 4);
    long pw = (long)cz_opt_num(&oa, "--partition-workers", 2);
    long th = (long)cz_opt_num(&oa, "--threads", 0);
    long outstanding_max = (long)cz_opt_num(&oa, "--in-flight", 32);
    if (seconds && count) return cz_usage_error(&stress_cmd, "--seconds and --count exclude each other");
    if (!seconds && !count) seconds = 10;
    o.pw = (unsigned)pw;
    o.wpd = 2;
    o.lookahead = 1;
    o.finalizers = 1;
    o.threads = (unsigned)th;
    o.budget = "auto";
    o.budget_parts = 3; /* a tight budget: partitions wait for reservations too */
    if (!o.json) printf("# stress: seed %" PRIu64 " (reproduce with --seed)\n", o.seed);
    rig r;
    int rc = rig_backend(&r, &o, o.circuit);
    if (rc || (rc = rig_engine(&r, &o, true)) != 0) {
        rig_destroy(&r);
        return rc ? rc : 1;
    }
    enum { NPAY = 16, NRID = 24 };
    char payloads[NPAY][48];
    for (int i = 0; i < NPAY; i++) snprintf(payloads[i], sizeof payloads[i], "{\"x0\": \"%d\"}", 7 + 13 * i);
    static const char *malformed[] = {"{\"x0\": \"zz\"}", "{\"y\": 1}", "not json at all",
                                      "{\"x0\": \"999999999999999999999999999999999999999999999999999999999999999999999999999999\"}"};
    rid_entry rids[NRID];
    memset(rids, 0, sizeof rids);
    uint64_t rng = o.seed;
    uint64_t n_ops = 0, n_accepted = 0, n_dup_same = 0, n_dup_busy = 0, n_bad_refused = 0, n_malformed = 0,
             n_cancel_ok = 0, n_cancel_busy = 0, n_inconsistent = 0;
    cz_job_id *live = NULL;
    size_t nlive = 0, caplive = 0;
    double t_end = mono_ms() + (double)seconds * 1e3;
    char msg[320];
#define INCONS(...)                                                                                                \
    do {                                                                                                           \
        n_inconsistent++;                                                                                          \
        fprintf(stderr, "stress: INCONSISTENT: " __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                                                       \
    } while (0)
    for (;;) {
        if (count ? (long)n_ops >= count : mono_ms() >= t_end) break;
        n_ops++;
        /* keep the number of unfinished jobs bounded */
        for (;;) {
            pthread_mutex_lock(&r.jt.mu);
            uint64_t fin = r.jt.done_count;
            pthread_mutex_unlock(&r.jt.mu);
            if (n_accepted - fin < (uint64_t)outstanding_max) break;
            (void)jt_pop(&r.jt, 200);
        }
        unsigned op = (unsigned)(rng_next(&rng) % 100);
        cz_priority prio = (cz_priority)(rng_next(&rng) % 4);
        uint32_t parts = 1 + (uint32_t)(rng_next(&rng) % (uint64_t)maxp);
        if (op < 55) { /* a valid job, sometimes under a request id */
            int pi = (int)(rng_next(&rng) % NPAY);
            rid_entry *re = NULL;
            if (rng_next(&rng) % 3 == 0) re = &rids[rng_next(&rng) % NRID];
            bool dup_same = false, dup_diff = false;
            if (re && re->used) {
                if (rng_next(&rng) % 2) {
                    dup_same = true;
                    pi = re->payload_idx;
                    parts = re->parts;
                } else {
                    dup_diff = true;
                    if (pi == re->payload_idx) pi = (pi + 1) % NPAY;
                }
            }
            char ridbuf[32] = "";
            if (re) snprintf(ridbuf, sizeof ridbuf, "req-%d-%" PRIu64, (int)(re - rids), o.seed);
            cz_job_request rq = {.circuit_id = o.circuit, .payload = payloads[pi], .payload_len = strlen(payloads[pi]),
                                 .num_partitions = parts, .priority = prio, .request_id = re ? ridbuf : NULL};
            cz_job_id id = 0;
            bool existing = false;
            cz_status st = cz_engine_submit(r.eng, &rq, &id, &existing, msg, sizeof msg);
            if (dup_diff) {
                if (st != CZ_ERR_BUSY) INCONS("request id %s reused with another payload: %s, not BUSY", ridbuf,
                                              cz_status_str(st));
                else n_dup_busy++;
                continue;
            }
            if (st != CZ_OK) {
                INCONS("valid submit refused: %s (%s)", msg, cz_status_str(st));
                continue;
            }
            if (dup_same) {
                if (!existing || id != re->id)
                    INCONS("resubmitted request id %s gave job %" PRIu64 " (existing %d), expected job %" PRIu64,
                           ridbuf, (uint64_t)id, existing, (uint64_t)re->id);
                else n_dup_same++;
                continue;
            }
            if (existing) {
                INCONS("fresh submission reported as existing (job %" PRIu64 ")", (uint64_t)id);
                continue;
            }
            n_accepted++;
            pthread_mutex_lock(&r.jt.mu);
            job_slot *s = jt_get_locked(&r.jt, id);
            if (s) {
                if (s->known) INCONS("job id %" PRIu64 " handed out twice", (uint64_t)id);
                s->known = true;
                s->payload_idx = pi;
                s->parts = parts;
            }
            pthread_mutex_unlock(&r.jt.mu);
            if (re) {
                re->used = true;
                re->id = id;
                re->payload_idx = pi;
                re->parts = parts;
            }
            if (nlive == caplive) {
                caplive = caplive ? 2 * caplive : 256;
                cz_job_id *nl = realloc(live, caplive * sizeof *nl);
                if (!nl) break;
                live = nl;
            }
            live[nlive++] = id;
        } else if (op < 70) { /* bad requests */
            unsigned kind = (unsigned)(rng_next(&rng) % 3);
            cz_job_id id = 0;
            if (kind == 0) {
                cz_job_request rq = {.circuit_id = "nosuch-12", .payload = payloads[0],
                                     .payload_len = strlen(payloads[0]), .num_partitions = parts, .priority = prio};
                cz_status st = cz_engine_submit(r.eng, &rq, &id, NULL, msg, sizeof msg);
                if (st != CZ_ERR_NOT_FOUND) INCONS("unknown circuit: %s, expected NOT_FOUND", cz_status_str(st));
                else n_bad_refused++;
            } else if (kind == 1) {
                cz_job_request rq = {.circuit_id = o.circuit, .payload = payloads[0],
                                     .payload_len = strlen(payloads[0]), .num_partitions = 0, .priority = prio};
                cz_status st = cz_engine_submit(r.eng, &rq, &id, NULL, msg, sizeof msg);
                if (st != CZ_ERR_INVALID_ARG) INCONS("zero partitions: %s, expected INVALID_ARG", cz_status_str(st));
                else n_bad_refused++;
            } else {
                const char *mp = malformed[rng_next(&rng) % (sizeof malformed / sizeof *malformed)];
                cz_job_request rq = {.circuit_id = o.circuit, .payload = mp, .payload_len = strlen(mp),
                                     .num_partitions = parts, .priority = prio};
                cz_status st = cz_engine_submit(r.eng, &rq, &id, NULL, msg, sizeof msg);
                if (st == CZ_OK) {
                    /* accepted: the back-end refuses it when the job is prepared */
                    n_accepted++;
                    n_malformed++;
                    pthread_mutex_lock(&r.jt.mu);
                    job_slot *s = jt_get_locked(&r.jt, id);
                    if (s) {
                        s->known = true;
                        s->malformed = true;
                        s->parts = parts;
                    }
                    pthread_mutex_unlock(&r.jt.mu);
                    if (nlive < caplive) live[nlive++] = id;
                } else if (st == CZ_ERR_FORMAT || st == CZ_ERR_INVALID_ARG) {
                    n_bad_refused++;
                } else {
                    INCONS("malformed payload: %s", cz_status_str(st));
                }
            }
        } else { /* cancel a random job (running, queued or already done) */
            if (!nlive) continue;
            size_t li = (size_t)(rng_next(&rng) % nlive);
            cz_job_id id = live[li];
            live[li] = live[--nlive];
            cz_job_state cs = CZ_JOB_QUEUED;
            cz_status st = cz_engine_cancel(r.eng, id, &cs);
            pthread_mutex_lock(&r.jt.mu);
            job_slot *s = jt_get_locked(&r.jt, id);
            if (st == CZ_OK) {
                n_cancel_ok++;
                if (s) s->cancel_ok = true;
            } else if (st == CZ_ERR_BUSY) {
                n_cancel_busy++;
                if (s) {
                    s->cancel_busy = true;
                    s->cancel_seen = cs;
                }
            } else {
                INCONS("cancel job %" PRIu64 ": %s", (uint64_t)id, cz_status_str(st));
            }
            pthread_mutex_unlock(&r.jt.mu);
        }
    }
    free(live);
    cz_status wst = cz_engine_wait_idle(r.eng, 300000);
    if (wst != CZ_OK) INCONS("engine not idle after 300 s: %s", cz_status_str(wst));
    /* every accepted job: exactly one notification, in the state its history implies */
    uint64_t n_done = 0, n_failed = 0, n_cancelled = 0, n_verified = 0;
    pthread_mutex_lock(&r.jt.mu);
    size_t cap = r.jt.cap;
    job_slot *copy = calloc(cap ? cap : 1, sizeof *copy);
    if (copy && cap) memcpy(copy, r.jt.slots, cap * sizeof *copy);
    pthread_mutex_unlock(&r.jt.mu);
    for (size_t i = 0; copy && i < cap; i++) {
        job_slot *s = &copy[i];
        if (!s->id) continue;
        if (!s->known) {
            INCONS("notification for job %" PRIu64 " that submit never returned", (uint64_t)s->id);
            continue;
        }
        if (s->calls != 1) INCONS("job %" PRIu64 ": %d end notifications", (uint64_t)s->id, s->calls);
        cz_job_result res;
        cz_status st = cz_engine_await(r.eng, s->id, 0, &res);
        if (st != CZ_OK) {
            INCONS("job %" PRIu64 ": await after idle: %s", (uint64_t)s->id, cz_status_str(st));
            continue;
        }
        if (res.state != s->cb_state)
            INCONS("job %" PRIu64 ": await says %s, notification said %s", (uint64_t)s->id,
                   cz_job_state_str(res.state), cz_job_state_str(s->cb_state));
        cz_job_state want;
        if (s->cancel_ok) want = CZ_JOB_CANCELLED;
        else if (s->malformed) want = CZ_JOB_FAILED;
        else want = CZ_JOB_DONE;
        if (s->cancel_busy && s->cancel_seen != res.state)
            INCONS("job %" PRIu64 ": cancel saw %s, final %s", (uint64_t)s->id, cz_job_state_str(s->cancel_seen),
                   cz_job_state_str(res.state));
        if (res.state != want)
            INCONS("job %" PRIu64 ": ended %s (%s), expected %s", (uint64_t)s->id, cz_job_state_str(res.state),
                   res.error, cz_job_state_str(want));
        if (res.state == CZ_JOB_DONE) {
            n_done++;
            /* verify a sample independently (every job is self-verified by the engine) */
            if (n_verified < 32 && s->payload_idx >= 0) {
                cz_errbuf e = {{0}};
                const char *p = payloads[s->payload_idx];
                if (cz_prover_verify(&r.be, o.circuit, NULL, (const uint8_t *)p, strlen(p), s->parts, res.proof,
                                     res.proof_len, &e) != CZ_OK)
                    INCONS("job %" PRIu64 ": proof does not verify: %s", (uint64_t)s->id, e.msg);
                n_verified++;
            }
        } else if (res.state == CZ_JOB_FAILED) {
            n_failed++;
        } else if (res.state == CZ_JOB_CANCELLED) {
            n_cancelled++;
        }
        cz_job_result_free(&res);
    }
    free(copy);
    cz_engine_status st;
    cz_engine_get_status(r.eng, &st);
    if (st.jobs_completed != n_done || st.jobs_failed != n_failed || st.jobs_cancelled != n_cancelled)
        INCONS("status counts completed/failed/cancelled %" PRIu64 "/%" PRIu64 "/%" PRIu64
               " differ from the jobs' %" PRIu64 "/%" PRIu64 "/%" PRIu64,
               st.jobs_completed, st.jobs_failed, st.jobs_cancelled, n_done, n_failed, n_cancelled);
    if (n_done + n_failed + n_cancelled != n_accepted)
        INCONS("%" PRIu64 " accepted jobs, %" PRIu64 " ended", n_accepted, n_done + n_failed + n_cancelled);
    if (st.partitions_inflight || st.budget_used != st.params_resident_bytes)
        INCONS("after idle: %" PRIu64 " partitions in flight, budget used %" PRIu64 " != parameters %" PRIu64,
               st.partitions_inflight, st.budget_used, st.params_resident_bytes);
#undef INCONS
    cz_bench_report *rep = cz_bench_report_new("stress", o.json);
    char extra[160];
    snprintf(extra, sizeof extra, "\"seed\":%" PRIu64 ",\"circuit\":\"%s\"", o.seed, o.circuit);
    cz_bench_report_add(rep, "operations", (double)n_ops, "ops", extra);
    cz_bench_report_add(rep, "jobs accepted", (double)n_accepted, "jobs", NULL);
    cz_bench_report_add(rep, "jobs done", (double)n_done, "jobs", NULL);
    cz_bench_report_add(rep, "jobs failed (malformed payloads)", (double)n_failed, "jobs", NULL);
    cz_bench_report_add(rep, "jobs cancelled", (double)n_cancelled, "jobs", NULL);
    cz_bench_report_add(rep, "cancel refused (already terminal)", (double)n_cancel_busy, "calls", NULL);
    cz_bench_report_add(rep, "cancel ok", (double)n_cancel_ok, "calls", NULL);
    cz_bench_report_add(rep, "duplicate request id, same job", (double)n_dup_same, "calls", NULL);
    cz_bench_report_add(rep, "duplicate request id, refused (BUSY)", (double)n_dup_busy, "calls", NULL);
    cz_bench_report_add(rep, "bad requests refused at submit", (double)n_bad_refused, "calls", NULL);
    cz_bench_report_add(rep, "malformed payloads accepted (then failed)", (double)n_malformed, "jobs", NULL);
    cz_bench_report_add(rep, "proofs verified independently", (double)n_verified, "proofs", NULL);
    cz_bench_report_add(rep, "partitions in flight peak", (double)st.partitions_inflight_peak, "parts", NULL);
    cz_bench_report_add(rep, "inconsistencies", (double)n_inconsistent, "", NULL);
    cz_bench_report_finish(rep);
    rig_destroy(&r);
    return n_inconsistent ? 1 : 0;
}
