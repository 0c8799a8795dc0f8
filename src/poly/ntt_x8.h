/*
 * Internal to src/poly (and the CLI's reports): NTT kernels on eight
 * lanes with AVX-512 IFMA (ntt_x8.c), and their AVX2 + MULX twins
 * (ntt_x16.c). Every kernel takes and writes canonical Fr elements in
 * Montgomery form (cz_fr), so ntt.c mixes them freely with its scalar
 * kernels; results are identical to the scalar ones.
 *
 * Counts (cnt) are multiples of 8. Twiddle i of a run is tw[i·ts] (ts may
 * be negative). p0/p1 runs do not overlap each other or the twiddles.
 * Run only while cz__ntt_x8_on (CPU support, not turned off).
 */
#ifndef CZ_NTT_X8_H
#define CZ_NTT_X8_H

#include "cuzk/field.h"
#include <stdatomic.h>
#include <stddef.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CZ_NTT_HAVE_X8 1
#else
#define CZ_NTT_HAVE_X8 0
#endif

/* Which vector kernels run: 0 none (the scalar ones in ntt.c), 1 the
 * AVX-512 IFMA ones (ntt_x8.c), 2 the AVX2 + MULX ones (ntt_x16.c, for
 * CPUs without IFMA, where a measurement says they pay: ntt_lanes.c).
 * CUZK_NO_SIMD: none; cz_ntt_set_simd switches between the choice and
 * none. */
enum { CZ_NTT_V_NONE = 0, CZ_NTT_V_IFMA = 1, CZ_NTT_V_AVX2 = 2 };
/* The AVX2 + MULX butterflies are taken at this ratio or below. */
#define CZ_NTT_AVX2_MAX_RATIO 0.92
/* Atomic: a periodic re-reading (cz__ntt_lanes_tick) may turn it from
 * none to avx2 while other threads' transforms read it. That is the only
 * change made while transforms run, and the two kinds of butterflies give
 * identical results, so a transform that sees it change midway is still
 * right. */
extern _Atomic int cz__ntt_x8_on;
/* Makes the choice (the AVX2 measurement, once per process; the first
 * domain created calls it). */
void cz__ntt_lanes_settle(void);
/* Where the measurement found the AVX2 butterflies too slow, the first
 * transform started one second later measures again (~2 ms), then the
 * first past gaps that double up to CZ_NTT_RECHECK_PERIOD_S seconds and
 * stay there; a fast reading takes them from then on (unless
 * cz_ntt_set_simd(false) is in force). Why: the readings come in spells
 * on a shared host (two of ten processes read 0.93 and 0.97 where the
 * rest read 0.77-0.78, BENCHMARKS.md), and a daemon that started in one
 * kept the scalar butterflies for its life. Why the short first gaps: a
 * spell lasts seconds, and a process that read one at its first proof
 * (shaped-18: 0.97, its quotient 158 ms against 139 with the AVX2
 * butterflies) ran a minute of proofs on the scalar ones; seven readings
 * in the first two minutes are ~14 ms. Called at the start of every
 * transform; without a planned reading it is one relaxed load. */
#define CZ_NTT_RECHECK_PERIOD_S 60
void cz__ntt_lanes_tick(void);
/* Test hooks: the next periodic reading falls due in_s seconds from now
 * (negative: none); the readings taken since the first and the latest of
 * them (0: none yet); the time until the next (< 0: none planned). */
void cz__ntt_lanes_set_periodic(double in_s);
int cz__ntt_lanes_readings(void);
double cz__ntt_lanes_last(void);
/* Test hooks: the next reading returns r instead of measuring (r <= 0:
 * measure); the gap in seconds that the next slow reading will wait. */
void cz__ntt_lanes_inject(double r);
double cz__ntt_lanes_gap(void);
double cz__ntt_lanes_periodic_in(void);
/* cz_ntt_set_simd's record of the caller's wish (on: the choice, off:
 * scalar), which a periodic reading respects. */
void cz__ntt_lanes_user(bool on);
/* The AVX2 butterflies' time over the scalar ones', the lowest reading
 * so far (0: not measured). */
double cz__ntt_lanes_ratio(void);
/* The kernels used when on (cz_ntt_set_simd(true)). */
int cz__ntt_v_preferred(void);
/* Test hook: the kernels to use from now on (CZ_NTT_V_*); false (and
 * nothing changed) when this CPU cannot run them. */
bool cz__ntt_v_force(int mode);

/* True when the AVX2 + MULX kernels can run here (CPU, CUZK_NO_SIMD). */
bool cz__ntt_x16_supported(void);

#if CZ_NTT_HAVE_X8

/* DIF butterflies: p0 = u + v, p1 = (u - v)·w (inv: (v - u)·w). */
void cz__ntt_x8_dif(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv);
/* DIT butterflies: t = v·w; p0 = u + t, p1 = u - t (inv: swapped). */
void cz__ntt_x8_dit(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv);
/* x[i] *= f */
void cz__ntt_x8_scale(cz_fr *x, size_t cnt, const cz_fr *f);
/* xs[j][off + i] *= tl[i]·f for each of the nx buffers (one product per i). */
void cz__ntt_x8_scale_tab(cz_fr *const *xs, unsigned nx, size_t off, size_t cnt, const cz_fr *tl,
                          const cz_fr *f);
/* a[i] = a[i]·b[i] */
void cz__ntt_x8_mul(cz_fr *a, const cz_fr *b, size_t cnt);

/* The same five on the AVX2 + MULX block (ff/fr_x4.h): sixteen products a
 * call, counts multiples of 8 (a short last call leaves places unused). */
void cz__ntt_x16_dif(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv);
void cz__ntt_x16_dit(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv);
void cz__ntt_x16_scale(cz_fr *x, size_t cnt, const cz_fr *f);
void cz__ntt_x16_scale_tab(cz_fr *const *xs, unsigned nx, size_t off, size_t cnt, const cz_fr *tl,
                           const cz_fr *f);
void cz__ntt_x16_mul(cz_fr *a, const cz_fr *b, size_t cnt);

/* What ntt.c calls while cz__ntt_x8_on: the kernels it names. */
static inline void cz__ntt_v_dif(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    if (cz__ntt_x8_on == CZ_NTT_V_IFMA) cz__ntt_x8_dif(p0, p1, cnt, tw, ts, inv);
    else cz__ntt_x16_dif(p0, p1, cnt, tw, ts, inv);
}
static inline void cz__ntt_v_dit(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    if (cz__ntt_x8_on == CZ_NTT_V_IFMA) cz__ntt_x8_dit(p0, p1, cnt, tw, ts, inv);
    else cz__ntt_x16_dit(p0, p1, cnt, tw, ts, inv);
}
static inline void cz__ntt_v_scale(cz_fr *x, size_t cnt, const cz_fr *f)
{
    if (cz__ntt_x8_on == CZ_NTT_V_IFMA) cz__ntt_x8_scale(x, cnt, f);
    else cz__ntt_x16_scale(x, cnt, f);
}
static inline void cz__ntt_v_scale_tab(cz_fr *const *xs, unsigned nx, size_t off, size_t cnt, const cz_fr *tl,
                                       const cz_fr *f)
{
    if (cz__ntt_x8_on == CZ_NTT_V_IFMA) cz__ntt_x8_scale_tab(xs, nx, off, cnt, tl, f);
    else cz__ntt_x16_scale_tab(xs, nx, off, cnt, tl, f);
}
static inline void cz__ntt_v_mul(cz_fr *a, const cz_fr *b, size_t cnt)
{
    if (cz__ntt_x8_on == CZ_NTT_V_IFMA) cz__ntt_x8_mul(a, b, cnt);
    else cz__ntt_x16_mul(a, b, cnt);
}

#else /* no vector kernels on this target: cz__ntt_x8_on stays 0 */

static inline void cz__ntt_v_dif(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    (void)p0, (void)p1, (void)cnt, (void)tw, (void)ts, (void)inv;
}
static inline void cz__ntt_v_dit(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    (void)p0, (void)p1, (void)cnt, (void)tw, (void)ts, (void)inv;
}
static inline void cz__ntt_v_scale(cz_fr *x, size_t cnt, const cz_fr *f) { (void)x, (void)cnt, (void)f; }
static inline void cz__ntt_v_scale_tab(cz_fr *const *xs, unsigned nx, size_t off, size_t cnt, const cz_fr *tl,
                                       const cz_fr *f)
{
    (void)xs, (void)nx, (void)off, (void)cnt, (void)tl, (void)f;
}
static inline void cz__ntt_v_mul(cz_fr *a, const cz_fr *b, size_t cnt) { (void)a, (void)b, (void)cnt; }

#endif

#endif
