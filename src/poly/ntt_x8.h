/*
 * Internal to src/poly: NTT kernels on eight lanes with AVX-512 IFMA
 * (ntt_x8.c). Every kernel takes and writes canonical Fr elements in
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
#include <stddef.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CZ_NTT_HAVE_X8 1
#else
#define CZ_NTT_HAVE_X8 0
#endif

/* 1 while the kernels are used (set at load time from CPUID; cz_ntt_set_simd). */
extern int cz__ntt_x8_on;
bool cz__ntt_x8_supported(void);

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

#endif
