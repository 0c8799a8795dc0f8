/*
 * Internal to src/msm: group-independent parts of the MSM (planning, Booth
 * digits, scalar classes, density bitmap cursors). See include/cuzk/msm.h
 * for the algorithm and memory contract.
 */
#ifndef CZ_MSM_INTERNAL_H
#define CZ_MSM_INTERNAL_H

#include "cuzk/msm.h"
#include <string.h>

/* The call's segments times the tables of each: the most segments of the
 * point space of one MSM (msm_impl.h's context holds a few words each). */
#define CZ__MSM_MAX_VSEGS (CZ_MSM_MAX_SEGS * CZ_MSM_MAX_TABLES)
/* Points per table-build task: one batch inversion per chunk and table,
 * and a Jacobian buffer of this many points (~74 KB G1, ~147 KB G2). */
#define CZ__MSM_TAB_CHUNK 512u

/* Batch-affine is used from this window up in AUTO mode: below it the
 * buckets are too few for batches big enough to amortise the inversion
 * (measured at 2^12 points: G1 gains from c = 8, G2, whose additions cost
 * more per inversion, from c = 6). */
#define CZ_MSM_AFFINE_MIN_WINDOW_G1 8
#define CZ_MSM_AFFINE_MIN_WINDOW_G2 6
/* Most point ranges per window (bounds the per-call result array). */
#define CZ_MSM_MAX_PARTS 256
/* Most chunks of the 0/1 split pass. */
#define CZ_MSM_MAX_CHUNKS 256
#define CZ_MSM_MAX_BATCH 1024u
/* Affine accumulators (and batch size) of the split pass's sum of 1-scalars. */
#define CZ_MSM_ONES_BATCH 256u

/* The eight-lane AVX-512 IFMA batch additions (msm_x8.c) are built
 * on x86-64 with GCC or Clang; it runs only when the CPU has it. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CZ_MSM_HAVE_X8 1
#else
#define CZ_MSM_HAVE_X8 0
#endif
/* Smallest batch handed to the eight-lane flush (below it the scalar one
 * is as fast: a lane group is padded to eight). */
#define CZ_MSM_X8_MIN_BATCH 8u
/* The fourteen-value G1 and G2 batch additions on AVX2 + FMA lanes and
 * MULX (msm_x16.c), for CPUs without IFMA; built where the eight-lane
 * ones are. */
#define CZ_MSM_HAVE_X16 CZ_MSM_HAVE_X8
/* Smallest batch handed to it (a group is padded to fourteen). */
#define CZ_MSM_X16_MIN_BATCH 32u

/* Which lanes the batch additions run on (G1 and G2 alike), chosen once per process at
 * the first MSM: IFMA where the CPU has it; else, where it has AVX2, FMA
 * and ADX, the AVX2 + MULX flush if a calibration finds its products fast
 * enough on this core (cz__msm_x16_time_ratio <= CZ_MSM_X16_MAX_RATIO);
 * else none (the scalar MULX flush). CUZK_NO_SIMD (any value) selects
 * none; CUZK_NO_IFMA rules IFMA out (as on a Zen 3); CUZK_MSM_LANES=
 * ifma|avx2|none selects one without calibrating (none when the CPU lacks
 * it), for comparisons on one machine, and auto is the default. The
 * calibration times the product kernel both flushes share; on the Zen 4
 * measured, G2's flush gains about what G1's does (BENCHMARKS.md, "G2 on
 * the AVX2 + MULX lanes"). */
typedef enum { CZ_MSM_LANES_NONE, CZ_MSM_LANES_IFMA, CZ_MSM_LANES_AVX2 } cz_msm_lanes;
cz_msm_lanes cz__msm_lanes(void);
/* The batch size an affine task uses for cap (cz__msm_batch_size): on the
 * AVX2 + MULX lanes, cap rounded down to a whole number of fourteen-value
 * calls, since a partial last call is padded (1,024 entries: twelve
 * padded places, 1.2 % of the flush's products); cap itself otherwise. */
unsigned cz__msm_lanes_batch(unsigned cap);
/* "ifma", "avx2" or "none" (benchmark reports). */
const char *cz__msm_lanes_name(cz_msm_lanes k);
/* The rule itself, without the CPU: IFMA if ifma, AVX2 if avx2 and
 * 0 < ratio <= CZ_MSM_X16_MAX_RATIO, else none.
 *
 * Why 0.85: the MSM gains only what the kernel gains beyond the cost of
 * repacking values into lanes. Measured (kernel ratio -> G1 2^16 MSM CPU
 * time on the lanes over the scalar flush): AMD Zen 4 0.69 (the field
 * benchmark's 15.0 against 21.6 ns a product; this calibration itself has
 * not run there) -> 0.78-0.82;
 * an Intel Xeon (Sapphire Rapids, IFMA ruled out) read 0.73-0.75 or
 * 0.95-1.1 from one process to the next (as the host loaded the sibling
 * hyperthread of the vCPU it ran on) -> 0.96-1.06 either way. A choice
 * at 0.85 takes the lanes where they clearly pay, and where the reading
 * is in between the two flushes cost about the same. */
#define CZ_MSM_X16_MAX_RATIO CZ_MSM_AVX2_MAX_RATIO
cz_msm_lanes cz__msm_lanes_pick(bool ifma, bool avx2, double ratio);
/* The choice at an MSM's start and in its scratch planning (msm.c's
 * X8_USABLE): cz__msm_lanes(),
 * except that while a measured choice is none, up to
 * CZ_MSM_X16_RECHECKS further MSM starts each take one more reading
 * first (~6 ms), and the first reading at or under the threshold turns
 * the choice to avx2 for the rest of the process (never back).
 *
 * Why: on a shared host the reading comes in spells. On the Zen 4
 * development VM, 34 processes of 40 read 0.51-0.57 and 6 read 0.82-1.01
 * (four of them over the threshold, so those ran the MULX flush for their
 * whole life, ~22 % slower MSMs), and twelve readings in a row inside one
 * process were all low, all high, or switched between the two
 * (BENCHMARKS.md, "G2 on the AVX2 + MULX lanes"). A core whose lanes
 * really are slow reads high every time and keeps the MULX flush; the
 * readings spread over the process's first MSMs cost at most
 * CZ_MSM_X16_RECHECKS·6 ms there. The change is safe mid-flight: an MSM
 * that started with none has no lane scratch (st->x8 NULL) and runs the
 * scalar flush to its end, and the choice only ever goes none -> avx2. */
#define CZ_MSM_X16_RECHECKS 8
/* After those, a measured none is read once more at the first MSM start
 * past every CZ_MSM_X16_RECHECK_PERIOD_S seconds, for the process's whole
 * life. Why: a daemon that starts in a slow spell spends its eight
 * re-checks within its first proof (six MSM starts each), possibly still
 * in the spell, and then ran the MULX flush for good: on the Zen 4 VM
 * such a process proved shaped-16 in 1,151 ms against 816-838 ms
 * (BENCHMARKS.md, "The Fp block at fourteen"). One ~6 ms reading a
 * minute is 0.01 % of a busy core; a core whose lanes really are slow
 * pays that and keeps the MULX flush. */
#define CZ_MSM_X16_RECHECK_PERIOD_S 60
cz_msm_lanes cz__msm_lanes_begin(void);
/* For tests: the choice, the re-checks left and the lowest reading as if
 * a calibration had just made them; and the re-checks left. */
void cz__msm_lanes_set_state(cz_msm_lanes k, int rechecks, double ratio);
int cz__msm_lanes_rechecks_left(void);
/* For tests: the next periodic reading falls due in_s seconds from now
 * (negative: never, as for a choice not measured); the readings taken
 * since the first calibration; the time until the next periodic reading
 * (< 0: none planned). */
void cz__msm_lanes_set_periodic(double in_s);
int cz__msm_lanes_readings(void);
double cz__msm_lanes_periodic_in(void);
/* The rule of the periodic reading, without a clock: due when one is
 * planned (next_ns >= 0) and now_ns has reached it. */
bool cz__msm_lanes_periodic_due(int64_t next_ns, int64_t now_ns);
/* The rule of one re-check, without the CPU: cur, or avx2 where cur is
 * none and the reading is fast enough. */
cz_msm_lanes cz__msm_lanes_recheck(cz_msm_lanes cur, double reading);
/* Time of the AVX2 + MULX block's products (ff/fp_x4.h) over that of as
 * many MULX products on this core, measured now (~6 ms; msm_x16.c); < 0 when
 * the kernel cannot run here. */
double cz__msm_x16_time_ratio(void);

/* One pending batch addition bucket[b] += (neg ? -*p : *p) (dbl: *p equals
 * the bucket, a doubling). Layout shared by msm_impl.h's G1 entry. */
typedef struct {
    const cz_g1_affine *p;
    uint32_t b;
    uint8_t neg;
    uint8_t dbl;
} cz_msm_g1_entry;

typedef struct {
    const cz_g2_affine *p;
    uint32_t b;
    uint8_t neg;
    uint8_t dbl;
} cz_msm_g2_entry;

/* True when the CPU has AVX-512F and AVX-512 IFMA (and the code is built). */
bool cz__msm_x8_supported(void);
/* Scratch bytes the eight-lane flush of a batch of up to cap entries needs
 * (0 when not built). */
size_t cz__msm_g1_x8_scratch(unsigned cap);
/* Applies the n (>= 1) pending additions of e to the affine buckets bk with
 * one inversion, eight lanes at a time: the same result as the scalar flush
 * of msm_impl.h (buckets canonical on entry and exit, every e[i].b distinct,
 * no e[i].p inside a bucket written by this batch). Run only when
 * cz__msm_x8_supported(). */
void cz__msm_g1_flush_x8(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch);
/* The same on AVX2 + FMA lanes and MULX, fourteen values a call (msm_x16.c); run only when
 * cz__msm_x16_supported(). */
bool cz__msm_x16_supported(void);
size_t cz__msm_g1_x16_scratch(unsigned cap);
void cz__msm_g1_flush_x16(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch);
/* G1 through whichever lanes cz__msm_lanes() names (msm_common.c). */
size_t cz__msm_g1_lanes_scratch(unsigned cap);
void cz__msm_g1_flush_lanes(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch);
/* The same for G2: eight IFMA lanes (msm_x8.c), fourteen AVX2 + MULX
 * values (msm_x16.c), and whichever cz__msm_lanes() names (msm_common.c). */
size_t cz__msm_g2_x8_scratch(unsigned cap);
void cz__msm_g2_flush_x8(cz_g2_affine *bk, const cz_msm_g2_entry *e, unsigned n, void *scratch);
size_t cz__msm_g2_x16_scratch(unsigned cap);
void cz__msm_g2_flush_x16(cz_g2_affine *bk, const cz_msm_g2_entry *e, unsigned n, void *scratch);
size_t cz__msm_g2_lanes_scratch(unsigned cap);
/* Tests only: w_red of msm_x16.c on CZ_FP_X16_N 384-bit integers v[i]
 * (six 64-bit limbs each, any value under 2^384), in place: each becomes a
 * value < 2p congruent to it mod p. False where the CPU lacks the lanes. */
bool cz__msm_x16_red(uint64_t (*v)[6]);
void cz__msm_g2_flush_lanes(cz_g2_affine *bk, const cz_msm_g2_entry *e, unsigned n, void *scratch);

typedef struct {
    unsigned c, nwin, nparts, batch, threads;
    unsigned affine_min; /* smallest effective window run with affine buckets */
    bool affine;
    double cost;         /* the model's cost (cz__msm_plan_vsegs only), mixed additions */
} cz_msm_plan;

/* Threads that run a parallel call (workers + the caller): planning and
 * scratch slots. */
unsigned cz__msm_threads(const cz_pool *pool);

/* Chooses c (unless forced), the point ranges per window and the bucket
 * mode for m general scalars of at most maxbits bits. cap_c bounds c
 * (so that the scratch bound computed for n covers every m <= n). */
void cz__msm_plan(cz_msm_plan *pl, size_t m, unsigned maxbits, unsigned threads,
                  const cz_msm_opts *opts, unsigned cap_c, unsigned affine_min, bool x8);

/* Effective width of window win (c bits, scalars of at most maxbits bits):
 * the top windows see only the scalars' top bits, so their digits are at
 * most 2^(kb-1) and 2^(kb-1) buckets serve them. */
static inline unsigned cz__msm_window_bits(unsigned maxbits, unsigned c, unsigned win)
{
    if (maxbits >= (win + 1) * c) return c;
    return maxbits > win * c ? maxbits - win * c + 1 : 1;
}

/* Batch size for 2^(c-1) affine buckets. */
unsigned cz__msm_batch_size(unsigned c);

/* Number of chunks of the split pass. */
size_t cz__msm_nchunks(size_t n, unsigned threads);

/* Bits [pos, pos+len) of a 256-bit scalar (zero past bit 255), len <= 32. */
static inline uint64_t cz__msm_bits(const uint64_t s[4], unsigned pos, unsigned len)
{
    unsigned limb = pos >> 6, off = pos & 63;
    if (limb >= 4) return 0;
    uint64_t v = s[limb] >> off;
    if (off + len > 64 && limb + 1 < 4) v |= s[limb + 1] << (64 - off);
    return v & ((UINT64_C(1) << len) - 1);
}

/* Signed Booth digit of window `win`: v + b_{ci-1} - 2^c·b_{ci+c-1},
 * in [-2^(c-1), 2^(c-1)]. The sum over windows telescopes to k as long as
 * bit c·nwin - 1 of k is zero (nwin = ceil((maxbits+1)/c)). */
static inline int32_t cz__msm_digit(const uint64_t s[4], unsigned win, unsigned c)
{
    uint64_t w;
    if (win == 0)
        w = cz__msm_bits(s, 0, c) << 1;
    else
        w = cz__msm_bits(s, win * c - 1, c + 1);
    uint64_t top = w >> c;
    return (int32_t)((w + 1) >> 1) - (int32_t)(top << c);
}

/* Signed Booth digit of the len-bit field at bit pos (len <= 21):
 * v + b_{pos-1} - 2^len·b_{pos+len-1}, in [-2^(len-1), 2^(len-1)], v the
 * field's value and b_{-1} = 0. Fields that tile a bit range contiguously
 * telescope: their digits, weighted 2^pos, sum to the range's value plus
 * b_{first-1} minus 2^end·b_{end-1}. cz__msm_digit(s, win, c) is
 * cz__msm_booth(s, win·c, c); a table segment (see msm_impl.h) reads its
 * windows at pos = j·B + win·c, the digits of the same recoding. */
static inline int32_t cz__msm_booth(const uint64_t s[4], unsigned pos, unsigned len)
{
    uint64_t w = pos == 0 ? cz__msm_bits(s, 0, len) << 1 : cz__msm_bits(s, pos - 1, len + 1);
    uint64_t top = w >> len;
    return (int32_t)((w + 1) >> 1) - (int32_t)(top << len);
}

/* Width of a plain (table-less) segment: wider than any scalar, so its
 * windows are all c bits wide and it has ceil((maxbits + 1)/c) of them. */
#define CZ_MSM_PLAIN_WIDTH 1024u

/* Effective width of window win of a segment whose digits start at bit
 * `bit` and span `width` bits (windows of c bits, the last one narrower),
 * for scalars of at most maxbits bits; 0 when the window has no nonzero
 * digit (past the segment, or above maxbits). A plain segment (bit 0,
 * CZ_MSM_PLAIN_WIDTH) gives cz__msm_window_bits for every window it has. */
static inline unsigned cz__msm_seg_window_bits(unsigned bit, unsigned width, unsigned maxbits,
                                               unsigned c, unsigned win)
{
    unsigned wc = win * c;
    if (wc >= width || bit + wc > maxbits) return 0;
    unsigned pos = bit + wc, len = width - wc < c ? width - wc : c;
    if (maxbits >= pos + len) return len;
    return maxbits > pos ? maxbits - pos + 1 : 1;
}

/* A segment as the planner of a table MSM sees it: digits from bit `bit`
 * over `width` bits, m general scalars (expected). */
typedef struct {
    unsigned bit, width;
    double m;
} cz_msm_vseg;

/* cz__msm_plan for an MSM over segments that read different bit ranges of
 * their scalars (table segments, plain segments mixed in): windows are
 * counted per segment, window w holds the points of every segment it
 * reaches, and its buckets are sized by the widest digit there. l2kb: the
 * widest window whose buckets stay in L2 (the model's 5 %-per-bit term
 * starts above it): 14 for G1 as in cz__msm_plan, 13 for G2, whose
 * affine points are twice as large. llc_kb: 0, or the widest window whose
 * buckets (all threads') fit in half the last-level cache, which the term
 * prices at 2 % a bit past l2kb + 2 (cz__msm_llc_kb). Sets pl->cost. */
void cz__msm_plan_vsegs(cz_msm_plan *pl, const cz_msm_vseg *v, unsigned nv, unsigned maxbits,
                        unsigned threads, const cz_msm_opts *opts, unsigned cap_c,
                        unsigned affine_min, bool x8, unsigned l2kb, unsigned llc_kb);

/* The widest window (at most CZ_MSM_MAX_WINDOW) whose 2^(kb-1) buckets of
 * point_bytes each, for every one of `threads` threads, fit in half the
 * last-level cache; 0 when its size is unknown or not even 2^13 buckets
 * fit. */
unsigned cz__msm_llc_kb(unsigned threads, size_t point_bytes);
/* Tests: the last-level cache size the planner assumes (0: unknown;
 * SIZE_MAX: back to what the system reports). */
void cz__msm_set_llc_bytes(size_t bytes);

/* 0: zero, 1: one, 2: anything else. */
static inline int cz__msm_class(const cz_scalar *s)
{
    if (s->l[1] | s->l[2] | s->l[3]) return 2;
    return s->l[0] > 1 ? 2 : (int)s->l[0];
}

/* Position of the first set bit at or after pos (the caller guarantees one). */
static inline size_t cz__msm_next_set(const uint64_t *bm, size_t pos)
{
    size_t w = pos >> 6;
    uint64_t word = bm[w] >> (pos & 63);
    if (word) return pos + (size_t)__builtin_ctzll(word);
    for (;;) {
        word = bm[++w];
        if (word) return (w << 6) + (size_t)__builtin_ctzll(word);
    }
}

/* Iterates the scalars paired with consecutive bases. */
typedef struct {
    const cz_scalar *sc;
    const uint64_t *bm; /* NULL: dense */
    size_t pos;
} cz_msm_cursor;

static inline const cz_scalar *cz__msm_cursor_next(cz_msm_cursor *it)
{
    if (it->bm) it->pos = cz__msm_next_set(it->bm, it->pos);
    return &it->sc[it->pos++];
}

/* cz__msm_starts for bounds in any order (nb <= CZ_MSM_MAX_PARTS + 1). */
void cz__msm_starts_any(size_t *pos, const size_t *bounds, size_t nb, const uint64_t *bm,
                        size_t nscalars);

/* Popcount of the first nbits bits of bm. */
size_t cz__msm_popcount(const uint64_t *bm, size_t nbits);

/* For sorted base indices bounds[0..nb), the scalar position of each
 * (dense: the index itself; density: the position of the bounds[i]-th set
 * bit, or nscalars past the last). One pass over the bitmap. */
void cz__msm_starts(size_t *pos, const size_t *bounds, size_t nb, const uint64_t *bm,
                    size_t nscalars);

#endif
