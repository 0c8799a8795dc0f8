/*
 * Which vector butterflies the NTT runs (ntt_x8.h: cz__ntt_x8_on).
 *
 * With AVX-512 IFMA: the IFMA ones (ntt_x8.c). Without it, the AVX2 +
 * MULX ones (ntt_x16.c) where they measure faster than the scalar
 * butterflies on this CPU: the first domain created times both on a run
 * of 2,048 in-cache DIT butterflies (a warm-up, then twenty alternating
 * rounds, the fastest of each, ~2 ms; with five rounds the block's first
 * cold calls still showed, and half of the processes read ~1.0 where the
 * rest read 0.77), and the AVX2 ones are taken at <= 0.92 of the scalar
 * time. Why measured, as the MSM's lanes are: the block's gain comes from
 * running the vector pipes beside the carry-flag-bound MULX products, and
 * a core that issues both from shared ports (the MSM's Fp block gained
 * nothing on an Intel Sapphire Rapids) would not see it. On the Zen 4
 * development machine they read ~0.8 and made the 2^20 quotient ~12 %
 * faster. CUZK_NTT_LANES=avx2 or none overrides the measurement. A
 * measured "scalar" is measured again at the start of a transform one
 * second later, then after gaps doubling up to a minute (cz__ntt_lanes_tick,
 * ntt_x8.h says why), and a fast reading switches to the AVX2 butterflies
 * for good.
 */
#include "ntt_arith.h"
#include "ntt_x8.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Atomic int cz__ntt_x8_on;
static _Atomic int pref;         /* the kernels cz_ntt_set_simd(true) selects */
static bool x8_ok, x16_ok;
static bool cal_pending;         /* AVX2 + MULX possible, not yet measured */
static _Atomic double cal_ratio; /* their time ÷ the scalar time, the lowest reading; 0: not measured */
static pthread_once_t cal_once = PTHREAD_ONCE_INIT;
/* CLOCK_MONOTONIC ns of the next periodic reading of a measured "scalar"
 * (-1: none planned), the readings after the first, and whether
 * cz_ntt_set_simd(false) is in force */
static _Atomic int64_t next_ns = -1;
static atomic_int readings;
static _Atomic double last_reading; /* the latest periodic one (tests) */
static atomic_bool user_off;

#define PERIOD_NS ((int64_t)CZ_NTT_RECHECK_PERIOD_S * 1000000000)
/* The gap before the next reading of a measured "scalar": one second after
 * the first, doubling up to PERIOD_NS (ntt_x8.h says why). */
#define FIRST_GAP_NS ((int64_t)1000000000)
static _Atomic int64_t gap_ns = FIRST_GAP_NS;

__attribute__((constructor)) static void ntt_lanes_init(void)
{
    x8_ok = cz_ff_ifma_supported();
    x16_ok = cz__ntt_x16_supported();
    const char *e = getenv("CUZK_NTT_LANES");
    if (x8_ok) pref = CZ_NTT_V_IFMA;
    else if (x16_ok && e && !strcmp(e, "avx2")) pref = CZ_NTT_V_AVX2;
    else if (x16_ok && !(e && !strcmp(e, "none"))) cal_pending = true;
    cz__ntt_x8_on = pref;
}

#if CZ_NTT_HAVE_X8
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The scalar DIT butterflies, as ntt.c runs them. */
static void dit_scalar(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw)
{
    for (size_t i = 0; i < cnt; i++) {
        cz_fr t, u = p0[i];
        fmul(&t, &p1[i], &tw[i]);
        fadd(&p0[i], &u, &t);
        fsub(&p1[i], &u, &t);
    }
}

static int64_t mono_ns(void) { return (int64_t)now_ns(); }

static _Atomic double injected; /* cz__ntt_lanes_inject */

/* The AVX2 butterflies' time over the scalar ones', or 0 where no
 * buffer could be had (then the choice stays as it is); an injected
 * reading instead, once. */
static double measure(void)
{
    enum { N = 2048, ROUNDS = 20 };
    double inj = atomic_exchange(&injected, 0.0);
    if (inj > 0) return inj;
    cz_fr *buf = malloc(3 * N * sizeof *buf);
    if (!buf) return 0;
    cz_fr *p0 = buf, *p1 = buf + N, *tw = buf + 2 * N;
    for (size_t i = 0; i < 3 * N; i++) cz_fr_from_u64(&buf[i], 0x9e3779b97f4a7c15ULL * (i + 1));
    double best[2] = {1e30, 1e30};
    cz__ntt_x16_dit(p0, p1, N, tw, 1, false); /* warm-up: code and data in cache */
    dit_scalar(p0, p1, N, tw);
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 2; k++) {
            const double t0 = now_ns();
            if (k) cz__ntt_x16_dit(p0, p1, N, tw, 1, false);
            else dit_scalar(p0, p1, N, tw);
            const double t = now_ns() - t0;
            if (t < best[k]) best[k] = t;
        }
    free(buf);
    return best[1] / best[0];
}

/* A reading at or under the threshold takes the AVX2 butterflies: the
 * preference, and the kernels in use unless the caller has switched them
 * off (or something else turned them on meanwhile). */
static void take_if_fast(double r)
{
    if (!(r > 0 && r <= CZ_NTT_AVX2_MAX_RATIO)) return;
    next_ns = -1;
    pref = CZ_NTT_V_AVX2;
    int none = CZ_NTT_V_NONE;
    if (!user_off) atomic_compare_exchange_strong(&cz__ntt_x8_on, &none, CZ_NTT_V_AVX2);
}

static void calibrate(void)
{
    if (!cal_pending) return;
    double r = measure();
    if (r <= 0) return; /* no measurement: stay scalar */
    cal_ratio = r;
    if (r <= CZ_NTT_AVX2_MAX_RATIO) {
        take_if_fast(r);
    } else {
        next_ns = mono_ns() + gap_ns;
        gap_ns = 2 * gap_ns < PERIOD_NS ? 2 * gap_ns : PERIOD_NS;
    }
}

void cz__ntt_lanes_tick(void)
{
    int64_t next = atomic_load_explicit(&next_ns, memory_order_relaxed);
    if (next < 0) return;
    int64_t now = mono_ns(), gap = gap_ns;
    /* one thread per reading: the CAS moves the next one on first */
    if (now < next || !atomic_compare_exchange_strong(&next_ns, &next, now + gap)) return;
    gap_ns = 2 * gap < PERIOD_NS ? 2 * gap : PERIOD_NS;
    atomic_fetch_add(&readings, 1);
    double r = measure();
    last_reading = r;
    double c = cal_ratio;
    if (r > 0 && (c <= 0 || r < c)) cal_ratio = r;
    take_if_fast(r);
}

void cz__ntt_lanes_set_periodic(double in_s) { next_ns = in_s < 0 ? -1 : mono_ns() + (int64_t)(in_s * 1e9); }

double cz__ntt_lanes_periodic_in(void)
{
    int64_t next = next_ns;
    if (next < 0) return -1;
    double d = (double)(next - mono_ns()) / 1e9;
    return d > 0 ? d : 0;
}
#else
static void calibrate(void) {} /* no vector kernels on this target */
void cz__ntt_lanes_tick(void) {}
void cz__ntt_lanes_set_periodic(double in_s) { (void)in_s; }
double cz__ntt_lanes_periodic_in(void) { return -1; }
#endif

int cz__ntt_lanes_readings(void) { return readings; }

void cz__ntt_lanes_inject(double r) { injected = r > 0 ? r : 0.0; }

double cz__ntt_lanes_gap(void) { return (double)gap_ns / 1e9; }

double cz__ntt_lanes_last(void) { return last_reading; }

void cz__ntt_lanes_user(bool on) { user_off = !on; }

void cz__ntt_lanes_settle(void) { pthread_once(&cal_once, calibrate); }

double cz__ntt_lanes_ratio(void) { return cal_ratio; }

int cz__ntt_v_preferred(void)
{
    cz__ntt_lanes_settle();
    return pref;
}

bool cz__ntt_v_force(int mode)
{
    cz__ntt_lanes_settle();
    if ((mode == CZ_NTT_V_IFMA && !x8_ok) || (mode == CZ_NTT_V_AVX2 && !x16_ok)) return false;
    next_ns = -1; /* a choice made by hand is not measured again */
    user_off = false;
    pref = mode;
    cz__ntt_x8_on = mode;
    return true;
}
