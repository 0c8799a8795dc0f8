/*
 * cuzk — multi-scalar multiplication (Pippenger) over G1 and G2.
 *
 *   out = sum_i scalars[i] · bases[i]
 *
 * Algorithm (src/msm/msm_impl.h, written once, instantiated for G1 and G2):
 *  1. Split pass (parallel over point chunks): scalars equal to 0 are
 *     dropped, scalars equal to 1 are summed directly (batched affine
 *     additions into 256 accumulators, no windows), and
 *     the remaining "general" scalars are counted. The real workloads have
 *     huge runs of 0/1 scalars, so the window is chosen from the number of
 *     general scalars, not from n.
 *  2. Pippenger over the general scalars with signed (Booth) digits of c
 *     bits: digit i of k is d_i = v_i + b_{ci-1} - 2^c·b_{ci+c-1} (v_i the
 *     c-bit field at ci), in [-2^(c-1), 2^(c-1)]; digits are computed on the
 *     fly from the scalar (no carry chain, no digit arrays), so any scalar
 *     < 2^256 works and the number of windows is ceil((maxbits + 1)/c).
 *     Each (window, point range) is one task: 2^(c-1) buckets accumulate
 *     ±P, either in XYZZ coordinates or in affine coordinates with batched
 *     (Montgomery-trick) inversions (a point whose bucket is already in
 *     the batch is queued and retried; XYZZ overflow buckets take the
 *     excess when many points share a bucket); buckets are reduced by
 *     running sums (affine buckets: in lanes of >= 16 buckets advanced
 *     together, so the running-sum additions are batched too); windows
 *     are combined by c doublings each. On x86-64 CPUs with AVX-512
 *     IFMA the batches (G1 and G2) are computed eight additions at a time
 *     in vector lanes (src/msm/msm_x8.c; the same result, 2.2-2.8x faster
 *     for G1, see BENCHMARKS.md); cz_msm_opts.no_simd turns that off.
 *  3. Tasks are claimed dynamically by the pool's threads; the result is
 *     the same group element whatever the thread count.
 * cz_msm_gX_concat runs this once over several (bases, scalars) segments
 * taken as one array, so sums that are added anyway (the prover's H + L)
 * share the split pass, the bucket reductions and the window choice.
 *
 * Table sets (cz_msm_gX_tables_*): for bases that serve many MSMs (the
 * Groth16 queries), t tables of B bits hold 2^(jB)·bases (t·B >= 256);
 * then sum k_i·P_i = sum_j sum_i D_j(k_i)·2^(jB)·P_i, D_j the signed digits
 * of k_i that fall in bits [jB, jB + B), so the MSM runs over t·n points
 * with ceil(B/c) windows instead of ceil(256/c) (one window at c = B):
 * the same number of bucket additions at a given c, but one or two bucket
 * reductions and window combinations instead of 16-20, and the 0/1 split
 * as before, for (t - 1)·n stored points and n·(t - 1)·B doublings to
 * build. What that saves is the reductions' share of a plain MSM at its
 * c (16 of 2^15 buckets at 2^18 and c = 16: ~15 %), plus what a wider c
 * saves once the reductions no longer grow with it. Measured, scalar
 * path, 16 tables of 16 bits (c = 16, one window), CPU time of
 * interleaved runs in one process, load 1-1.6 on 2 vCPUs: G1 2^14 1.40x,
 * 2^16 1.26-1.29x (1 and 2 threads), 2^18 1.12x, 2^20 1.05x; G2 2^16
 * 1.23-1.26x. Half the memory, 8 tables of 32 bits (c = 16, two
 * windows): G1 2^16 1.23x, 2^18 1.16x. Narrower tables gain less (2^16,
 * 19 tables of 14 bits at c = 14: 1.10x). cz_msm_gX_tables_shape gives
 * the shape the cost model prices best (8 × 32 from 2^16 on 2 threads,
 * 16 × 16 at 2^16 on one), or none (2^20 and up: the gain is ~0-5 %);
 * with cz_msm_opts.tables_wide, where every thread's buckets fit in half
 * the last-level cache and the additions are not IFMA's, also one window
 * of 18-20 bits (13 × 20 at 2^20 on 2 threads: 13 additions a point
 * instead of 16 for one 2^19-bucket reduction; measured 1.09-1.12x the
 * plain MSM on a Xeon with 260 MB of L3 without IFMA, 0.96-0.98x with it).
 *
 * Window choice: a cost model over c (1..CZ_MSM_MAX_WINDOW) and the number
 * of point ranges per window, from the number of general scalars and the
 * pool size; cz_msm_opts.window forces c (tests force every c in turn).
 *
 * Memory (all of it in one scratch block; see cz_msm_g1_scratch_size):
 *   per thread (pool workers + the caller), one slot of the largest of:
 *   XYZZ buckets 2^(c-1) × (192 B G1 | 384 B G2); affine buckets
 *   2^(c-1) × (96 B | 192 B) + as many XYZZ overflow buckets (touched only
 *   when many points hit the same bucket: the pages of a malloc'd block
 *   that are never written cost no RAM) + 2 flag bytes per bucket + a batch
 *   of min(2^(c-1)/4, 1024) entries × (one field element + 16 B) and a
 *   retry queue of as many 16 B entries; the split pass's 256 affine
 *   accumulators (~95 KB | ~180 KB); with AVX-512 IFMA: + 384 B (G1) |
 *   768 B (G2) per batch entry of lane scratch (≈ 390 KB | 780 KB at
 *   c >= 13); plus one XYZZ point per
 *   (window, range) (at most 257 × 4T) and per split chunk (at most 4T).
 *   XYZZ-only buckets serve windows below 8 (G1) / 6 (G2) unless forced.
 *   E.g. G1 at c = 16: ≈ 9.9 MB per thread of which ≈ 3.6 MB is touched
 *   in the common case (cz_msm_g1_scratch_resident); c = 13: ≈ 1.6 MB;
 *   G2 about twice that.
 *   No digit arrays and no index arrays are materialised (digits are
 *   recomputed from the 32-byte scalars in each window pass), so the
 *   scratch depends on n only through the choice of c.
 *   If opts->scratch is NULL the block is malloc'd and freed inside the
 *   call; otherwise the caller's block is used. Either way a ~35 KB control
 *   block (task bounds and per-chunk counters) is malloc'd per call.
 *   A table MSM may plan a wider c than the plain one for the same n: its
 *   bound is cz_msm_gX_tables_scratch_size (the table set itself is the
 *   caller's, cz_msm_gX_tables_bytes).
 * Threads: the pool's workers and the calling thread claim tasks from a
 *   shared counter; a NULL pool runs everything on the calling thread.
 * Timing: variable time in the scalars and the bases (public data only —
 * the PoRep witness is public; never pass secret scalars).
 * Inputs: bases affine, Montgomery form, infinity = (0,0) allowed, assumed
 * on the curve and in the subgroup (not checked); scalars canonical
 * integers < 2^256 as 4 little-endian limbs (need not be reduced mod r).
 * Outputs never alias inputs.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include "cuzk/curve.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_MSM_MAX_WINDOW 20
/* Most segments of one cz_msm_gX_concat call. */
#define CZ_MSM_MAX_SEGS 8
/* Most tables of one table set (cz_msm_gX_tables_build). */
#define CZ_MSM_MAX_TABLES 32

typedef enum {
    CZ_MSM_BUCKETS_AUTO = 0,   /* affine (batched inversion) for c >= 8 (G1) / 6 (G2), else XYZZ */
    CZ_MSM_BUCKETS_XYZZ = 1,
    CZ_MSM_BUCKETS_AFFINE = 2
} cz_msm_buckets;

/* The configuration one call resolved (for benchmarks and logs). */
typedef struct {
    unsigned window;       /* c */
    unsigned nwin;         /* windows actually run */
    unsigned nparts;       /* point ranges per window */
    bool affine;           /* batch-affine buckets */
    unsigned batch;        /* batch size (affine) */
    unsigned threads;      /* pool size used for planning */
    bool simd;             /* G1 batch additions ran on AVX-512 IFMA lanes */
    size_t n_zero, n_one, n_general;
    size_t scratch_bytes;  /* bytes of scratch this call used */
    unsigned tables;       /* most tables of a table set this call ran over
                              (0: none, the plain MSM; see cz_msm_gX_tables) */
} cz_msm_info;

typedef struct {
    unsigned window;           /* 0: automatic; 1..CZ_MSM_MAX_WINDOW: forced */
    cz_msm_buckets buckets;    /* bucket representation */
    bool no_split;             /* run 0/1 scalars through Pippenger too (tests) */
    bool no_simd;              /* scalar G1 batch additions even where SIMD lanes
                                  (AVX-512 IFMA, AVX2 + FMA) are available (tests,
                                  comparisons) */
    void *scratch;             /* caller-owned scratch, or NULL */
    size_t scratch_size;       /* its size in bytes (>= cz_msm_gX_scratch_size) */
    cz_msm_info *info;         /* if not NULL, receives the resolved configuration */
    bool tables_wide;          /* cz_msm_gX_tables_shape only: also weigh one window as
                                  wide as the field (18-20 bits), where the buckets fit
                                  the last-level cache. Such a set pays a reduction of
                                  2^(B-1) buckets in every call, however few of its
                                  scalars are general: ask for it only for bases whose
                                  scalars are full width in every call (Groth16's H) */
} cz_msm_opts;

/* True when this process runs the G1 batch additions on SIMD lanes: by
 * default eight AVX-512 IFMA lanes where the CPU has AVX-512F and AVX-512
 * IFMA, else fourteen values at a time on AVX2 + FMA lanes and MULX where
 * it has AVX2, FMA and ADX (x86-64); CUZK_NO_SIMD turns lanes off,
 * CUZK_NO_IFMA the IFMA ones, CUZK_MSM_LANES=ifma|avx2|none picks them.
 * The AVX2 lanes are taken only where a calibration at the first MSM finds
 * their products fast enough on this core (cz_msm_lanes_chosen); where it
 * does not, up to eight later MSMs measure again at their start, then one
 * MSM start a minute for the process's life, and the first fast reading
 * takes the lanes from then on (so this may turn true during a process,
 * never back). */
bool cz_msm_simd_available(void);

/* Which lanes that is: "ifma", "avx2" or "none". Where the choice between
 * the AVX2 lanes and the scalar flush was measured (a CPU with AVX2, FMA
 * and ADX but not IFMA, CUZK_MSM_LANES unset or auto), *ratio (may be
 * NULL) receives the measured time of the lanes' products over MULX's,
 * the lowest reading so far (the AVX2 lanes are taken at <=
 * CZ_MSM_AVX2_MAX_RATIO), else -1. */
const char *cz_msm_lanes_chosen(double *ratio);
/* The calibration's threshold (why this value: src/msm/msm_internal.h). */
#define CZ_MSM_AVX2_MAX_RATIO 0.85

/* Canonical scalars from Fr elements (Montgomery form), in parallel.
 * out may be the same array as in (cast), converting in place. */
void cz_msm_scalars_from_fr(cz_scalar *out, const cz_fr *in, size_t n, cz_pool *pool);

/* Declared for G1 and G2 (replace g1 by g2 and the point types). */
#define CZ_DECLARE_MSM(G)                                                                    \
/* One segment of a concatenated MSM: n bases and the n scalars paired with them. */      \
typedef struct {                                                                             \
    const cz_##G##_affine *bases;                                                            \
    const cz_scalar *scalars;                                                                \
    size_t n;                                                                                \
} cz_msm_##G##_seg;                                                                          \
/* Scratch bytes a call over n points with this pool and opts may use (an               */  \
/* upper bound for any scalar values; opts->scratch is ignored; opts may be NULL).      */  \
size_t cz_msm_##G##_scratch_size(size_t n, const cz_pool *pool, const cz_msm_opts *opts);   \
/* The part of that bound a call normally writes (RSS counts written pages       */  \
/* only): the affine slots' XYZZ overflow buckets, touched only when many points  */  \
/* share a bucket, are left out. For memory budgets, not for allocation.         */  \
size_t cz_msm_##G##_scratch_resident(size_t n, const cz_pool *pool, const cz_msm_opts *opts); \
/* out = sum scalars[i]·bases[i], i < n. n = 0 gives infinity. opts may be NULL.        */  \
/* Errors: CZ_ERR_INVALID_ARG (NULL arrays with n > 0, window out of range, scratch     */  \
/* too small), CZ_ERR_NOMEM.                                                             */  \
CZ_WUR cz_status cz_msm_##G(cz_##G##_jac *out, const cz_##G##_affine *bases,              \
                            const cz_scalar *scalars, size_t n, cz_pool *pool,              \
                            const cz_msm_opts *opts);                                       \
/* Density-filtered: scalars has nscalars entries; density is a bitmap of nscalars      */  \
/* bits (bit k = word k/64, bit k%64, LSB first; bits past nscalars ignored); bases[j]  */  \
/* pairs with the scalar of the j-th set bit. The popcount must equal nbases           */  \
/* (CZ_ERR_MISMATCH otherwise: a mismatch would silently shift every later base).       */  \
CZ_WUR cz_status cz_msm_##G##_density(cz_##G##_jac *out, const cz_##G##_affine *bases,    \
                                      size_t nbases, const cz_scalar *scalars,              \
                                      size_t nscalars, const uint64_t *density,             \
                                      cz_pool *pool, const cz_msm_opts *opts);              \
/* out = the sum over the nsegs segments of sum scalars[i]·bases[i]: the same point as   */  \
/* cz_msm_##G over the segments' bases and scalars laid end to end (and the same window, */  \
/* ranges and scratch as that call: size opts->scratch for the total n), without       */  \
/* copying them. One Pippenger over all the points shares each window's bucket          */  \
/* reduction and the 0/1 split, which separate calls would each pay for (the prover     */  \
/* sums H and L this way). A segment with n = 0 may have NULL arrays; nsegs = 0 gives   */  \
/* infinity. Errors: those of cz_msm_##G; CZ_ERR_INVALID_ARG also for nsegs >           */  \
/* CZ_MSM_MAX_SEGS or NULL arrays in a segment with n > 0.                              */  \
CZ_WUR cz_status cz_msm_##G##_concat(cz_##G##_jac *out, const cz_msm_##G##_seg *segs,    \
                                     size_t nsegs, cz_pool *pool, const cz_msm_opts *opts); \
/* ---- table sets (precomputed multiples of fixed bases) ----                          */  \
/* Opaque; built once for bases that serve many MSMs (a Groth16 parameter set).         */  \
typedef struct cz_msm_##G##_tables cz_msm_##G##_tables;                                    \
/* Bytes a table set of t tables for n bases holds (tables 1..t-1, n affine points      */  \
/* each: table 0 is the caller's bases, not copied), SIZE_MAX if that overflows.        */  \
size_t cz_msm_##G##_tables_bytes(size_t n, unsigned t);                                    \
/* Builds the table set: table j holds 2^(j·bits)·bases[i] (affine, normalised with one */  \
/* batch inversion per chunk of points). Cost: n·(t-1)·bits doublings plus the          */  \
/* normalisations, in parallel over chunks of points on pool: about 2^16·240 doublings  */  \
/* for n = 2^16, t = 16, bits = 16: 4.3 s on one core (scalar), 2^20 64 s, G2 ~2.2x.  */  \
/* bases must stay valid and unchanged until cz_msm_##G##_tables_free (table 0).         */  \
/* Requires 1 <= t <= CZ_MSM_MAX_TABLES, 1 <= bits <= 256 and t·bits >= 256: the signed */  \
/* digits of a 255-bit scalar (every canonical Fr element) span 256 bits. Errors:       */  \
/* CZ_ERR_INVALID_ARG (with a message in err: which argument, its value), CZ_ERR_NOMEM. */  \
CZ_WUR cz_status cz_msm_##G##_tables_build(cz_msm_##G##_tables **out,                     \
                                           const cz_##G##_affine *bases, size_t n,         \
                                           unsigned t, unsigned bits, cz_pool *pool,       \
                                           cz_errbuf *err);                                \
/* A table set over points made earlier (a file of them, mapped): points holds tables   */  \
/* 1..t-1, n points each, table j at points + (j-1)·n, exactly as _tables_points gives   */  \
/* them after a build; nothing is checked or copied, and bases and points must stay     */  \
/* valid and unchanged until _tables_free (which frees neither). Arguments as _build    */  \
/* (CZ_ERR_INVALID_ARG also for points NULL with t > 1 and n > 0).                       */  \
CZ_WUR cz_status cz_msm_##G##_tables_wrap(cz_msm_##G##_tables **out,                      \
                                          const cz_##G##_affine *bases, size_t n,          \
                                          unsigned t, unsigned bits,                       \
                                          const cz_##G##_affine *points, cz_errbuf *err);  \
/* Tables 1..t-1 of the set, (t-1)·n points (NULL when t = 1 or n = 0): what a file of  */  \
/* the set stores and _wrap takes back.                                                  */  \
const cz_##G##_affine *cz_msm_##G##_tables_points(const cz_msm_##G##_tables *tab);         \
void cz_msm_##G##_tables_free(cz_msm_##G##_tables *tab);                                   \
/* The set's shape: its number of bases, tables and bits per table.                     */  \
size_t cz_msm_##G##_tables_n(const cz_msm_##G##_tables *tab);                              \
unsigned cz_msm_##G##_tables_count(const cz_msm_##G##_tables *tab);                        \
unsigned cz_msm_##G##_tables_bits(const cz_msm_##G##_tables *tab);                         \
/* The MSMs below give the same point as cz_msm_##G (and _density, _concat) over the    */  \
/* set's bases. They run one Pippenger over the tables laid end to end, table j's       */  \
/* points taking the signed bits-bit digit j of the scalar's recoding (bits            */  \
/* [j·bits, (j+1)·bits)): one window when c = bits, ceil(bits/c) otherwise, instead of */  \
/* ceil(256/c), hence fewer bucket reductions and a wider c (chosen by the same cost    */  \
/* model). Scalars wider than t·bits - 1 bits (possible only for non-reduced scalars    */  \
/* with t·bits < 257) are summed without the tables (info->tables = 0). Scratch: size   */  \
/* opts->scratch by cz_msm_##G##_tables_scratch_size.                                   */  \
CZ_WUR cz_status cz_msm_##G##_tables_msm(cz_##G##_jac *out, const cz_msm_##G##_tables *tab, \
                                         const cz_scalar *scalars, cz_pool *pool,          \
                                         const cz_msm_opts *opts);                          \
/* Density-filtered (as cz_msm_##G##_density): the set's n bases pair with the set bits */  \
/* of density (popcount != n: CZ_ERR_MISMATCH).                                          */  \
CZ_WUR cz_status cz_msm_##G##_tables_density(cz_##G##_jac *out,                           \
                                             const cz_msm_##G##_tables *tab,                \
                                             const cz_scalar *scalars, size_t nscalars,     \
                                             const uint64_t *density, cz_pool *pool,        \
                                             const cz_msm_opts *opts);                      \
/* cz_msm_##G##_concat with a table set per segment: tabs[k] (tabs itself may be NULL)  */  \
/* is NULL for a plain segment, else the set of segs[k]'s bases (segs[k].bases NULL or  */  \
/* the set's bases, segs[k].n the set's n: CZ_ERR_MISMATCH otherwise). Segments of one  */  \
/* digit width (plain, or tables of one bits) share a Pippenger; each width is a run of */  \
/* its own (a plain segment never takes a table's window), the runs' sums added; info  */  \
/* gives the plan of the run over the most points and every run's counts.              */  \
CZ_WUR cz_status cz_msm_##G##_tables_concat(cz_##G##_jac *out, const cz_msm_##G##_seg *segs, \
                                            const cz_msm_##G##_tables *const *tabs,         \
                                            size_t nsegs, cz_pool *pool,                    \
                                            const cz_msm_opts *opts);                       \
/* Scratch bytes of a table MSM over n bases (all segments together) whose table sets   */  \
/* have t tables of `bits` bits (several shapes in one concat call: the largest of      */  \
/* their figures); never below cz_msm_##G##_scratch_size(n, pool, opts).                 */  \
size_t cz_msm_##G##_tables_scratch_size(size_t n, unsigned t, unsigned bits,               \
                                        const cz_pool *pool, const cz_msm_opts *opts);   \
/* A table shape for MSMs of about m general (not 0/1) full-width scalars on this pool, */  \
/* of at most max_bytes (cz_msm_##G##_tables_bytes): the one the planner's cost model   */  \
/* prices lowest (fewer tables among near ties), t = ceil(256/bits), bits 8..32; with   */  \
/* opts->tables_wide also one window of 18-20 bits where it fits the cache (above).     */  \
/* False (and t = 1, bits = 256) when no shape fits or none is priced 3 % or more below */  \
/* the plain MSM. A model, not a measurement (see the measured gains above).             */  \
bool cz_msm_##G##_tables_shape(size_t m, const cz_pool *pool, const cz_msm_opts *opts,     \
                               size_t max_bytes, unsigned *t, unsigned *bits);

CZ_DECLARE_MSM(g1)
CZ_DECLARE_MSM(g2)

#ifdef __cplusplus
}
#endif
#endif /* CUZK_MSM_H */
