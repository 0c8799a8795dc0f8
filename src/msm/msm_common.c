/*
 * Group-independent parts of the MSM: planning (window and split choice),
 * density bitmap helpers, bulk Fr -> scalar conversion.
 */
#include "msm_internal.h"
#include "ff/fp_x4.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- lanes ------------------------------------------------------------- */

/* Atomic: a re-check at an MSM's start (cz__msm_lanes_begin) may turn
 * none into avx2 while other threads read the choice. */
static _Atomic int g_lanes;
static _Atomic double g_ratio = -1; /* the lowest reading of the calibration, when it ran */
static atomic_int g_rechecks;       /* readings left to take while the choice is none */
/* CLOCK_MONOTONIC ns at which a measured none is read again (after the
 * re-checks; CZ_MSM_X16_RECHECK_PERIOD_S apart), -1: never */
static _Atomic int64_t g_next_ns = -1;
static atomic_int g_readings; /* readings after the first calibration */

#define PERIOD_NS ((int64_t)CZ_MSM_X16_RECHECK_PERIOD_S * 1000000000)

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static pthread_once_t g_lanes_once = PTHREAD_ONCE_INIT;

/* From the CPU, not from the flushes' own flags: those are set by
 * constructors that may run after lanes_init. */
static bool lanes_supported(cz_msm_lanes k)
{
    return k == CZ_MSM_LANES_NONE || (k == CZ_MSM_LANES_IFMA && CZ_MSM_HAVE_X8 && cz_ff_ifma_supported()) ||
           (k == CZ_MSM_LANES_AVX2 && cz__msm_x16_supported());
}

cz_msm_lanes cz__msm_lanes_pick(bool ifma, bool avx2, double ratio)
{
    if (ifma) return CZ_MSM_LANES_IFMA;
    if (avx2 && ratio > 0 && ratio <= CZ_MSM_X16_MAX_RATIO) return CZ_MSM_LANES_AVX2;
    return CZ_MSM_LANES_NONE;
}

/* Once, at the first MSM (not in a constructor: a process that never sums
 * does not pay for the calibration). */
static void lanes_init(void)
{
    const char *want = getenv("CUZK_MSM_LANES");
    if (want && !strcmp(want, "auto")) want = NULL;
    if (getenv("CUZK_NO_SIMD")) g_lanes = CZ_MSM_LANES_NONE;
    else if (want) {
        cz_msm_lanes k = !strcmp(want, "ifma") ? CZ_MSM_LANES_IFMA
                         : !strcmp(want, "avx2") ? CZ_MSM_LANES_AVX2 : CZ_MSM_LANES_NONE;
        if (k == CZ_MSM_LANES_NONE && strcmp(want, "none"))
            fprintf(stderr, "cuzk: CUZK_MSM_LANES=%s: expected auto, ifma, avx2 or none; using none\n", want);
        g_lanes = lanes_supported(k) ? k : CZ_MSM_LANES_NONE;
    } else {
        bool ifma = lanes_supported(CZ_MSM_LANES_IFMA), avx2 = lanes_supported(CZ_MSM_LANES_AVX2);
        double r = -1;
        if (!ifma && avx2) r = cz__msm_x16_time_ratio();
        g_ratio = r;
        g_lanes = cz__msm_lanes_pick(ifma, avx2, r);
        if (g_lanes == CZ_MSM_LANES_NONE && r > 0) {
            g_rechecks = CZ_MSM_X16_RECHECKS;
            g_next_ns = mono_ns() + PERIOD_NS;
        }
    }
}

cz_msm_lanes cz__msm_lanes(void)
{
    pthread_once(&g_lanes_once, lanes_init);
    return (cz_msm_lanes)atomic_load_explicit(&g_lanes, memory_order_relaxed);
}

unsigned cz__msm_lanes_batch(unsigned cap)
{
    if (cap >= CZ_FP_X16_N && cz__msm_lanes() == CZ_MSM_LANES_AVX2) return cap / CZ_FP_X16_N * CZ_FP_X16_N;
    return cap;
}

void cz__msm_lanes_set_state(cz_msm_lanes k, int rechecks, double ratio)
{
    (void)cz__msm_lanes(); /* the first calibration, not after this */
    g_ratio = ratio;
    g_rechecks = rechecks;
    g_lanes = (int)k;
}

int cz__msm_lanes_rechecks_left(void)
{
    int n = atomic_load(&g_rechecks);
    return n > 0 ? n : 0;
}

void cz__msm_lanes_set_periodic(double in_s)
{
    (void)cz__msm_lanes();
    g_next_ns = in_s < 0 ? -1 : mono_ns() + (int64_t)(in_s * 1e9);
}

int cz__msm_lanes_readings(void) { return atomic_load(&g_readings); }

double cz__msm_lanes_periodic_in(void)
{
    int64_t next = atomic_load(&g_next_ns);
    if (next < 0) return -1;
    double d = (double)(next - mono_ns()) / 1e9;
    return d > 0 ? d : 0;
}

bool cz__msm_lanes_periodic_due(int64_t next_ns, int64_t now_ns) { return next_ns >= 0 && now_ns >= next_ns; }

cz_msm_lanes cz__msm_lanes_recheck(cz_msm_lanes cur, double reading)
{
    if (cur == CZ_MSM_LANES_NONE && cz__msm_lanes_pick(false, true, reading) == CZ_MSM_LANES_AVX2)
        return CZ_MSM_LANES_AVX2;
    return cur;
}

cz_msm_lanes cz__msm_lanes_begin(void)
{
    cz_msm_lanes k = cz__msm_lanes();
    if (k != CZ_MSM_LANES_NONE) return k;
    /* one reading per MSM start while re-checks are left, then one each
     * period; a thread that finds none left, or loses the race for the
     * last or for the period's (the CAS moves the next one on before the
     * reading), goes on with the choice */
    if (atomic_load_explicit(&g_rechecks, memory_order_relaxed) <= 0 || atomic_fetch_sub(&g_rechecks, 1) <= 0) {
        int64_t next = atomic_load_explicit(&g_next_ns, memory_order_relaxed), now = mono_ns();
        if (!cz__msm_lanes_periodic_due(next, now) ||
            !atomic_compare_exchange_strong(&g_next_ns, &next, now + PERIOD_NS))
            return k;
    }
    atomic_fetch_add(&g_readings, 1);
    double r = cz__msm_x16_time_ratio();
    if (r > 0 && r < g_ratio) g_ratio = r;
    cz_msm_lanes n = cz__msm_lanes_recheck(k, r);
    if (n != k) {
        atomic_store(&g_rechecks, 0);
        atomic_store(&g_next_ns, -1);
        atomic_store(&g_lanes, (int)n);
    }
    return n;
}

const char *cz__msm_lanes_name(cz_msm_lanes k)
{
    return k == CZ_MSM_LANES_IFMA ? "ifma" : k == CZ_MSM_LANES_AVX2 ? "avx2" : "none";
}

size_t cz__msm_g1_lanes_scratch(unsigned cap)
{
    /* the larger of the two flushes' needs (six values per entry each) */
    size_t a = cz__msm_g1_x8_scratch(cap), b = cz__msm_g1_x16_scratch(cap);
    return a > b ? a : b;
}

void cz__msm_g1_flush_lanes(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch)
{
    if (cz__msm_lanes() == CZ_MSM_LANES_AVX2) cz__msm_g1_flush_x16(bk, e, n, scratch);
    else cz__msm_g1_flush_x8(bk, e, n, scratch);
}

size_t cz__msm_g2_lanes_scratch(unsigned cap)
{
    size_t a = cz__msm_g2_x8_scratch(cap), b = cz__msm_g2_x16_scratch(cap);
    return a > b ? a : b;
}

void cz__msm_g2_flush_lanes(cz_g2_affine *bk, const cz_msm_g2_entry *e, unsigned n, void *scratch)
{
    if (cz__msm_lanes() == CZ_MSM_LANES_AVX2) cz__msm_g2_flush_x16(bk, e, n, scratch);
    else cz__msm_g2_flush_x8(bk, e, n, scratch);
}

bool cz_msm_simd_available(void) { return cz__msm_lanes() != CZ_MSM_LANES_NONE; }

const char *cz_msm_lanes_chosen(double *ratio)
{
    cz_msm_lanes k = cz__msm_lanes();
    if (ratio) *ratio = g_ratio;
    return cz__msm_lanes_name(k);
}

unsigned cz__msm_threads(const cz_pool *pool)
{
    /* the pool's workers, plus the calling thread, which takes part */
    return pool ? cz_pool_size(pool) + 1 : 1;
}

/* SIZE_MAX: the system's figure (sysconf); anything else set by a test. */
static _Atomic size_t g_llc_override = SIZE_MAX;

void cz__msm_set_llc_bytes(size_t bytes) { atomic_store(&g_llc_override, bytes); }

static size_t llc_bytes(void)
{
    size_t o = atomic_load(&g_llc_override);
    if (o != SIZE_MAX) return o;
#ifdef _SC_LEVEL3_CACHE_SIZE
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v > 0) return (size_t)v;
#endif
    return 0;
}

unsigned cz__msm_llc_kb(unsigned threads, size_t point_bytes)
{
    /* Half the cache: a VM's L3 is shared with whatever else runs on the
     * host, and the points, tables and batch stream through it too. */
    size_t half = llc_bytes() / 2;
    unsigned best = 0;
    for (unsigned kb = 14; kb <= CZ_MSM_MAX_WINDOW; kb++) {
        double need = (double)(threads ? threads : 1) * (double)((size_t)1 << (kb - 1)) * (double)point_bytes;
        if (need <= (double)half) best = kb;
    }
    return best;
}

unsigned cz__msm_batch_size(unsigned c)
{
    /* A batch holds at most one pending addition per bucket; at K/4 entries
     * about one point in eight finds its bucket busy (queued and retried),
     * while the one inversion per batch is amortised over enough additions
     * once K >= 512. */
    size_t k = (size_t)1 << (c - 1);
    size_t b = k / 4;
    if (b < 1) b = 1;
    if (b > CZ_MSM_MAX_BATCH) b = CZ_MSM_MAX_BATCH;
    return (unsigned)b;
}

size_t cz__msm_nchunks(size_t n, unsigned threads)
{
    size_t ch = threads == 1 ? 1 : (size_t)threads * 4;
    if (ch > CZ_MSM_MAX_CHUNKS) ch = CZ_MSM_MAX_CHUNKS;
    if (ch > n) ch = n;
    return ch ? ch : 1;
}

static bool use_affine(const cz_msm_opts *o, unsigned c, unsigned affine_min)
{
    cz_msm_buckets b = o ? o->buckets : CZ_MSM_BUCKETS_AUTO;
    if (b == CZ_MSM_BUCKETS_XYZZ) return false;
    if (b == CZ_MSM_BUCKETS_AFFINE) return true;
    return c >= affine_min;
}

/*
 * Cost model, in units of one mixed (XYZZ + affine) addition:
 *  - per window and point range of mp points: the additions into its
 *    k = 2^(kb-1) buckets, kb the window's effective width (the top window
 *    sees only the scalars' top bits: few buckets, run with XYZZ buckets
 *    below affine_min). A fraction 2^-kb of the digits is zero, and the
 *    first point to reach a bucket is a copy, not an addition: with mw
 *    nonzero digits spread evenly, mw - k(1 - e^(-mw/k)) additions. That
 *    term is what makes wide windows pay at moderate sizes (at 2^16
 *    points and c = 16 four points in ten land in an empty bucket).
 *    Batched affine costs A per addition plus one inversion (I additions)
 *    per batch; XYZZ 1.0; 5% dearer per bit of kb past 14, as the buckets
 *    leave L2. A and I: scalar MULX/ADX 0.80 and 4, eight-lane IFMA (x8)
 *    0.30 and 8 (the inversion also combines the eight lanes). With x8 a
 *    narrow top window is expensive next to the others, which is why
 *    c = 16 (16 windows, none narrow) often wins for 255-bit scalars.
 *  - the running-sum reduction: per bucket one addition of the bucket
 *    (none when it is empty, probability e^(-mw/k)) and one of the running
 *    sum; batched affine RA/2 each (RA ≈ 1.5 scalar, ≈ 0.7 x8), XYZZ 1.4;
 *    the same L2 term.
 *  - tasks are spread over T threads: wall ≈ rounds × mean task;
 *  - serial tail: summing the nwin × np partial results and ~maxbits
 *    doublings.
 * Scalar constants fitted (2026-12-01) to forced-window times at 2^16,
 * 2^18 and 2^20 points (c = 12..17, one thread, `cuzk bench msm --sweep`):
 * the fitted per-addition times were 208 ns for the accumulation and
 * 192 ns for a reduction addition (XYZZ mixed addition 260 ns), RMS error
 * 2.6% over the 14 points. Without the empty-bucket term the same times
 * fit only with a reduction addition of 88 ns, under half of what the
 * same batched addition costs in the accumulation; the old constants
 * priced c = 16 at 2^16 57% dearer than c = 13 (measured: 20%).
 */

/* The per-addition factor of buckets that have left L2: 5 % a bit past
 * l2kb; with llc_kb (not 0) the widest window whose buckets, all threads'
 * together, fit in half the last-level cache, bits past the second one
 * cost 2 % each up to llc_kb. Why the milder slope: on an Emerald Rapids
 * Xeon without IFMA (260 MB of L3 reported, the batched additions
 * prefetching their buckets) a G1 addition into 2^19 buckets (c = 20)
 * cost 1.07x one into 2^15 (c = 16), where 5 % a bit prices 1.18x
 * (BENCHMARKS.md "Wide H tables where the buckets fit the L3"). Past
 * the LLC, or where its size is unknown, the 5 % slope stands. */
static double l2_factor(unsigned kb, unsigned l2kb, unsigned llc_kb)
{
    if (kb <= l2kb) return 1.0;
    unsigned x = kb - l2kb;
    if (!llc_kb || kb > llc_kb || x <= 2) return 1.0 + 0.05 * x;
    return 1.10 + 0.02 * (x - 2);
}

/* Cost of one window of effective width kb over mp points (additions and
 * its reduction), for the constants above. */
static double window_cost_l2(double mp, unsigned kb, bool waff, double A, double I, double RA,
                             unsigned l2kb, unsigned llc_kb)
{
    double k = (double)((size_t)1 << (kb - 1));
    double a = waff ? A + I / cz__msm_batch_size(kb) : 1.0;
    double r = waff ? RA / 2 : 1.4;
    double f = l2_factor(kb, l2kb, llc_kb);
    a *= f;
    r *= f;
    double mw = mp * (1.0 - 1.0 / (double)((size_t)1 << kb));
    double x = mw / k, e = x < 40 ? exp(-x) : 0.0;
    return (mw - k * (1.0 - e)) * a + k * (2.0 - e) * r;
}

static double window_cost(double mp, unsigned kb, bool waff, double A, double I, double RA)
{
    return window_cost_l2(mp, kb, waff, A, I, RA, 14, 0);
}

/* What both planners search and with which constants: the window range
 * (a forced window is the whole range), the most point ranges per window,
 * and the model's per-addition costs (in units of one XYZZ mixed addition:
 * batch-affine accumulation A, the inversion per batch I, a reduction
 * addition RA; fitted per path, BENCHMARKS.md "Planner"). */
typedef struct {
    unsigned cmin, cmax, maxparts;
    bool forced_affine;
    double A, I, RA;
} plan_space;

static plan_space plan_space_of(const cz_msm_opts *opts, unsigned cap_c, unsigned threads, bool x8)
{
    plan_space ps;
    unsigned forced = opts ? opts->window : 0;
    ps.forced_affine = opts && opts->buckets == CZ_MSM_BUCKETS_AFFINE;
    ps.cmin = 1;
    ps.cmax = cap_c < CZ_MSM_MAX_WINDOW ? cap_c : CZ_MSM_MAX_WINDOW;
    if (ps.cmax < 1) ps.cmax = 1;
    if (forced) ps.cmin = ps.cmax = forced;
    ps.maxparts = threads == 1 ? 1 : threads * 4;
    if (ps.maxparts > CZ_MSM_MAX_PARTS) ps.maxparts = CZ_MSM_MAX_PARTS;
    ps.A = x8 ? 0.30 : 0.80;
    ps.I = x8 ? 8.0 : 4.0;
    ps.RA = x8 ? 0.7 : 1.5;
    return ps;
}

void cz__msm_plan(cz_msm_plan *pl, size_t m, unsigned maxbits, unsigned threads,
                  const cz_msm_opts *opts, unsigned cap_c, unsigned affine_min, bool x8)
{
    plan_space ps = plan_space_of(opts, cap_c, threads, x8);
    const bool forced_affine = ps.forced_affine;
    const unsigned cmin = ps.cmin, cmax = ps.cmax, maxparts = ps.maxparts;
    const double A = ps.A, I = ps.I, RA = ps.RA;

    double best = INFINITY;
    pl->c = cmin;
    pl->nparts = 1;
    for (unsigned c = cmin; c <= cmax; c++) {
        bool aff = use_affine(opts, c, affine_min);
        unsigned nwin = (maxbits + 1 + c - 1) / c;
        /* windows 0..nfull-1 are c bits wide; only the top one or two
         * differ, so each (c, np) prices at most three distinct widths */
        unsigned nfull = maxbits / c < nwin ? maxbits / c : nwin;
        bool full_aff = aff && (c >= affine_min || forced_affine);
        /* Lower bound of a task's cost, whatever np: each full window's
         * reduction visits its k buckets at least once (2 - e >= 1). The
         * bound with the task overheads grows with np, so once it reaches
         * the best cost no larger np (and, at np = 1, no np) can win:
         * this keeps the plan cheap with many threads, where every
         * window_cost would otherwise call exp. */
        double rf = full_aff ? RA / 2 : 1.4;
        rf *= l2_factor(c, 14, 0);
        double task_floor = (double)nfull * (double)((size_t)1 << (c - 1)) * rf / nwin;
        for (unsigned np = 1; np <= maxparts; np++) {
            double ntasks = (double)nwin * np;
            if (ceil(ntasks / threads) * task_floor + ntasks * 1.4 + (double)maxbits * 1.2 >= best) break;
            double mp = (double)m / np, work = 0;
            if (nfull) work += nfull * window_cost(mp, c, full_aff, A, I, RA);
            for (unsigned w = nfull; w < nwin; w++) {
                unsigned kb = cz__msm_window_bits(maxbits, c, w);
                work += window_cost(mp, kb, aff && (kb >= affine_min || forced_affine), A, I, RA);
            }
            double rounds = ceil(ntasks / threads);
            double cost = rounds * (work / nwin) + ntasks * 1.4 + (double)maxbits * 1.2;
            if (cost < best) {
                best = cost;
                pl->c = c;
                pl->nparts = np;
            }
            if (mp < 1.0) break;
        }
    }
    pl->nwin = (maxbits + 1 + pl->c - 1) / pl->c;
    pl->affine = use_affine(opts, pl->c, affine_min);
    pl->affine_min = affine_min;
    pl->batch = cz__msm_batch_size(pl->c);
    pl->threads = threads;
}

/*
 * The same model for segments that read different bit ranges (tables: a
 * table segment j of B bits reads bits [jB, jB + B), so with c = B it has
 * one window). Window w holds the points of every segment that reaches it
 * (P_w), with buckets for its widest digit (kb_w); a task is one
 * (window, point range) pair as before, so with np ranges a window costs
 * window_cost(P_w/np, kb_w) per range. What tables save shows up as the
 * windows' count: ceil(B/c) reductions and serial combinations instead of
 * ceil((maxbits + 1)/c), and a wider c for the same point count (the
 * reduction, 2^c per window, is paid once or twice instead of 16-20
 * times). The serial tail is the (nwin - 1)·c doublings of the window
 * combination and the sum of the nwin·np partial results.
 */
void cz__msm_plan_vsegs(cz_msm_plan *pl, const cz_msm_vseg *v, unsigned nv, unsigned maxbits,
                        unsigned threads, const cz_msm_opts *opts, unsigned cap_c,
                        unsigned affine_min, bool x8, unsigned l2kb, unsigned llc_kb)
{
    plan_space ps = plan_space_of(opts, cap_c, threads, x8);
    const bool forced_affine = ps.forced_affine;
    const unsigned cmin = ps.cmin, cmax = ps.cmax, maxparts = ps.maxparts;
    const double A = ps.A, I = ps.I, RA = ps.RA;
    /* windows of c = 1 over 257 bits: the most any plan has */
    enum { WMAX = 258 };
    double pw[WMAX];
    unsigned kw[WMAX];

    double best = INFINITY;
    pl->c = cmin;
    pl->nparts = 1;
    pl->nwin = 1;
    for (unsigned c = cmin; c <= cmax; c++) {
        bool aff = use_affine(opts, c, affine_min);
        unsigned nwin = 0;
        double pmax = 0, task_floor = 0;
        for (unsigned w = 0; w < WMAX; w++) {
            double p = 0;
            unsigned kb = 0;
            for (unsigned i = 0; i < nv; i++) {
                unsigned b = cz__msm_seg_window_bits(v[i].bit, v[i].width, maxbits, c, w);
                if (!b) continue;
                p += v[i].m;
                if (b > kb) kb = b;
            }
            if (!kb) break;
            pw[w] = p;
            kw[w] = kb;
            nwin = w + 1;
            if (p > pmax) pmax = p;
            /* each task visits its window's buckets at least once */
            bool waff = aff && (kb >= affine_min || forced_affine);
            double r = waff ? RA / 2 : 1.4;
            r *= l2_factor(kb, l2kb, llc_kb);
            task_floor += (double)((size_t)1 << (kb - 1)) * r;
        }
        if (!nwin) continue;
        task_floor /= nwin;
        unsigned top = maxbits < nwin * c ? maxbits : nwin * c;
        double tail = (double)top * 1.2;
        for (unsigned np = 1; np <= maxparts; np++) {
            double ntasks = (double)nwin * np;
            if (ceil(ntasks / threads) * task_floor + ntasks * 1.4 + tail >= best) break;
            double work = 0, cmax_task = 0;
            for (unsigned w = 0; w < nwin; w++) {
                double cw = window_cost_l2(pw[w] / np, kw[w], aff && (kw[w] >= affine_min || forced_affine),
                                           A, I, RA, l2kb, llc_kb);
                work += cw;
                if (cw > cmax_task) cmax_task = cw;
            }
            /* windows may differ widely here (c = 15 over 16-bit tables: a
             * 15-bit window and a 1-bit one), so the wall time is at least
             * the dearest task, not only rounds × the mean task */
            double wall = ceil(ntasks / threads) * (work / nwin);
            if (cmax_task > wall) wall = cmax_task;
            double cost = wall + ntasks * 1.4 + tail;
            if (cost < best) {
                best = cost;
                pl->c = c;
                pl->nparts = np;
                pl->nwin = nwin;
            }
            if (pmax / np < 1.0) break;
        }
    }
    if (best == INFINITY) {
        /* no segment has a digit at any c (cannot happen for maxbits >= 1) */
        pl->nwin = 1;
    }
    pl->cost = best;
    pl->affine = use_affine(opts, pl->c, affine_min);
    pl->affine_min = affine_min;
    pl->batch = cz__msm_batch_size(pl->c);
    pl->threads = threads;
}

void cz__msm_starts_any(size_t *pos, const size_t *bounds, size_t nb, const uint64_t *bm,
                        size_t nscalars)
{
    /* sort the (at most 257) bounds by insertion, run the one-pass
     * cz__msm_starts over them, put the results back in order */
    size_t idx[CZ_MSM_MAX_PARTS + 1], sb[CZ_MSM_MAX_PARTS + 1] = {0}, sp[CZ_MSM_MAX_PARTS + 1];
    if (nb > CZ_MSM_MAX_PARTS + 1) nb = CZ_MSM_MAX_PARTS + 1; /* the documented bound */
    for (size_t i = 0; i < nb; i++) {
        size_t j = i;
        while (j > 0 && bounds[idx[j - 1]] > bounds[i]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    for (size_t i = 0; i < nb; i++) sb[i] = bounds[idx[i]];
    cz__msm_starts(sp, sb, nb, bm, nscalars);
    for (size_t i = 0; i < nb; i++) pos[idx[i]] = sp[i];
}

size_t cz__msm_popcount(const uint64_t *bm, size_t nbits)
{
    size_t cnt = 0, full = nbits >> 6;
    for (size_t i = 0; i < full; i++) cnt += (size_t)__builtin_popcountll(bm[i]);
    if (nbits & 63) cnt += (size_t)__builtin_popcountll(bm[full] & ((UINT64_C(1) << (nbits & 63)) - 1));
    return cnt;
}

void cz__msm_starts(size_t *pos, const size_t *bounds, size_t nb, const uint64_t *bm,
                    size_t nscalars)
{
    if (!bm) {
        for (size_t i = 0; i < nb; i++) pos[i] = bounds[i];
        return;
    }
    size_t nwords = (nscalars + 63) >> 6;
    size_t seen = 0, w = 0, i = 0;
    for (; i < nb; i++) {
        size_t target = bounds[i];
        /* advance whole words while the target set bit lies beyond them */
        while (w < nwords) {
            uint64_t word = bm[w];
            if (w == nwords - 1 && (nscalars & 63)) word &= (UINT64_C(1) << (nscalars & 63)) - 1;
            size_t c = (size_t)__builtin_popcountll(word);
            if (seen + c > target) {
                /* the (target - seen)-th set bit of this word */
                for (size_t k = target - seen; k; k--) word &= word - 1;
                pos[i] = (w << 6) + (size_t)__builtin_ctzll(word);
                break;
            }
            seen += c;
            w++;
        }
        if (w >= nwords) pos[i] = nscalars;
    }
}

typedef struct {
    cz_scalar *out;
    const cz_fr *in;
} fr_conv;

static void fr_conv_range(void *arg, size_t lo, size_t hi)
{
    const fr_conv *a = arg;
    for (size_t i = lo; i < hi; i++) {
        uint64_t t[4];
        cz_fr_to_raw(t, &a->in[i]);
        memcpy(a->out[i].l, t, sizeof t);
    }
}

void cz_msm_scalars_from_fr(cz_scalar *out, const cz_fr *in, size_t n, cz_pool *pool)
{
    fr_conv a = {out, in};
    if (n == 0) return;
    cz_pool_parallel_range(pool, 0, n, 4096, fr_conv_range, &a);
}
