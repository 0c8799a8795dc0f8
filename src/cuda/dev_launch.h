/*
 * cuzk CUDA backend — every launch parameter of the kernel drivers, in one
 * place that kernels.cu and the host replay (tests/cuda/test_cuda_algo.c)
 * both use: block sizes, grid sizes, and the MSM plan (window, buckets,
 * reduction groups, chunk size, scalar = 1 threads).
 *
 * Why one header: the replay is only evidence for the device if it runs
 * the per-thread bodies with the grid shape the device runs them with
 * (same groups, same chunking, same scan block). A parameter that exists
 * twice drifts; this file is the only definition.
 */
#ifndef CUZK_CUDA_DEV_LAUNCH_H
#define CUZK_CUDA_DEV_LAUNCH_H

#include "cuda/dev_intrin.h"

/* threads per block of every one-dimensional kernel */
#define CZ_DEV_BLOCK 256u
/* threads of the MSM's per-window block scan (one block per window); the
 * scan's shared array has this many entries */
#define CZ_MSM_SCAN_THREADS 1024u
/* reduction groups per window (fewer when the window has fewer buckets) */
#define CZ_MSM_GROUPS_MAX 1024u
/* threads of the scalar = 1 batch sum (fewer for small n) */
#define CZ_MSM_ONES_THREADS_MAX 16384u
/* points per sorting pass: 2^24 by default (the sorted index array is
 * ceil(256/c)·4 B per point of a chunk: 1 GiB at c = 16) */
#define CZ_MSM_CHUNK_LOG_DEFAULT 24u
#define CZ_MSM_CHUNK_LOG_MAX 30u
/* largest accepted forced window, and the largest the plan chooses */
#define CZ_MSM_WINDOW_MAX 20u
#define CZ_MSM_WINDOW_AUTO_MAX 20u
/* at most this many buckets per reduction group: G = max(min(nb, 1024),
 * nb / 64), so a window of 2^19 buckets (c = 20) reduces in 8192 groups
 * of 64 (~128 additions a thread) rather than 1024 of 512 */
#define CZ_MSM_GROUP_BUCKETS 64u
/* smallest bucket piece (cz_msm_plan.piece_log) */
#define CZ_MSM_PIECE_LOG_MIN 5u

/* NTT tiles (cz_d_ntt_plan): a tile is 2^CZ_NTT_TILE_LOG elements in
 * shared memory (2^11 · 32 B = 64 KiB, dynamic shared memory: above the
 * 48 KiB default, so the driver raises the kernel's limit), worked on by
 * CZ_NTT_TILE_THREADS threads (each does 2^(TILE_LOG-1) / THREADS
 * butterflies per stage). Occupancy: k_ntt_tile is launch-bounded to
 * two blocks per SM, at most 64 registers a thread (ptxas: 64, no
 * spills), so 2 · 512 threads use the SM's 65,536 registers, and 128 KiB
 * of the 228 KiB of shared memory on an H100/H200 (164 KiB on an A100). After the first group, a tile holds runs of
 * 2^CZ_NTT_RUN_LOG consecutive elements (4 · 32 B = 128 B, one memory
 * transaction per run) so that its loads and stores are coalesced. */
#define CZ_NTT_TILE_LOG 11u
#define CZ_NTT_TILE_THREADS 512u
#define CZ_NTT_RUN_LOG 2u
#define CZ_NTT_GROUPS_MAX 32u

/* One group of consecutive radix-2 DIT stages done in one pass over
 * global memory: stages s0 .. s0 + k - 1 (k >= 1) on tiles of 2^(k + r)
 * elements, r <= s0 (runs of 2^r consecutive indices). */
typedef struct {
    unsigned s0, k, r;
} cz_ntt_group;

typedef struct {
    unsigned ngroups;
    cz_ntt_group g[CZ_NTT_GROUPS_MAX];
} cz_ntt_plan;

/* The stage groups of a transform of 2^log_n points (log_n <= 31) with
 * tiles of 2^tile_log elements (2 <= tile_log; the driver passes
 * CZ_NTT_TILE_LOG, the host tests smaller tiles to get many groups):
 * the first group takes min(log_n, tile_log) stages with r = 0 (a tile
 * is a contiguous block, stage s pairs i and i + 2^s inside a block of
 * 2^(s+1)); each later group r = min(s0, CZ_NTT_RUN_LOG, tile_log - 1)
 * and k = min(stages left, tile_log - r). log_n = 27, tile 2^11: groups
 * of 11, 9 and 7 stages, three passes instead of 27. */
CZ_HD void cz_d_ntt_plan(cz_ntt_plan *p, unsigned log_n, unsigned tile_log)
{
    unsigned s0 = 0;
    p->ngroups = 0;
    while (s0 < log_n && p->ngroups < CZ_NTT_GROUPS_MAX) {
        unsigned r = s0 < CZ_NTT_RUN_LOG ? s0 : CZ_NTT_RUN_LOG;
        if (r > tile_log - 1) r = tile_log - 1;
        if (s0 == 0) r = 0;
        unsigned k = tile_log - r;
        if (k > log_n - s0) k = log_n - s0;
        cz_ntt_group *g = &p->g[p->ngroups++];
        g->s0 = s0;
        g->k = k;
        g->r = r;
        s0 += k;
    }
}

/* blocks of CZ_DEV_BLOCK threads covering n items */
CZ_HD uint64_t cz_d_grid(uint64_t n) { return (n + CZ_DEV_BLOCK - 1) / CZ_DEV_BLOCK; }

CZ_HD unsigned cz_d_msm_nwin(unsigned c) { return (256 + c - 1) / c; }

/* Window width for n general points. Below 2^21 points (GPU cost model:
 * enough buckets to keep ~10^5 threads busy, few enough that the
 * reduction stays small): clamp(floor(log2 n) - 4, 4, 16). From 2^21 on,
 * the c in 16..CZ_MSM_WINDOW_AUTO_MAX with the fewest point additions,
 * ceil(256/c) · (n + 2^c) (each window adds every point into a bucket,
 * and its reduction costs ~2 additions per bucket), ties to the smaller
 * c: 16 at 2^21, 19 at 2^22, 20 from 2^23 on. At 2^27 that is 13 windows
 * instead of 16, 18 % fewer additions, for 1.3 GiB of buckets (13 · 2^19 ·
 * 192 B) where c = 16 took 100 MiB: sized for an H100/H200's 80-141 GiB,
 * where a 2^27 partition's resident bases take 48 GiB. */
CZ_HD unsigned cz_d_msm_window(uint64_t n)
{
    unsigned lg = 0;
    while (lg < 63 && ((uint64_t)1 << (lg + 1)) <= n) lg++;
    if (lg >= 21) {
        unsigned best = 16;
        uint64_t best_cost = 0;
        for (unsigned c = 16; c <= CZ_MSM_WINDOW_AUTO_MAX; c++) {
            uint64_t cost = (uint64_t)cz_d_msm_nwin(c) * (n + ((uint64_t)1 << c));
            if (c == 16 || cost < best_cost) {
                best = c;
                best_cost = cost;
            }
        }
        return best;
    }
    unsigned c = lg > 4 ? lg - 4 : 1;
    if (c < 4) c = 4;
    if (c > 16) c = 16;
    return c;
}

typedef struct {
    unsigned c;     /* window width */
    unsigned nwin;  /* ceil(256 / c) windows */
    uint32_t nb;    /* buckets per window: 2^(c-1) (|digit| = 1 .. 2^(c-1)) */
    uint32_t G;     /* reduction groups per window: max(min(nb, 1024), nb / 64), a power of two */
    uint64_t chunk; /* points per sorting pass (min(2^chunk_log, n)) */
    uint64_t T;     /* scalar = 1 threads: largest power of two <= min(n, 16384) */
    /* Bucket pieces: a bucket's entries of one chunk are added by
     * ceil(count / 2^piece_log) threads, one piece each, so a bucket that
     * holds many points (skewed scalars: many equal values) is not one
     * thread's serial work. piece_log = max(CZ_MSM_PIECE_LOG_MIN,
     * ceil(log2 chunk) / 2 rounded up): the longest serial run is then
     * max(2^piece_log additions of a piece, chunk / 2^piece_log partial
     * sums merged into one bucket), i.e. about sqrt(chunk) = 4096 at 2^24
     * whatever the scalars (2^24 on one thread before). With uniform
     * scalars a bucket of a 2^24 chunk holds ~32 entries at c = 20, ~512
     * at c = 16: one piece, as before. */
    unsigned piece_log;
    uint64_t pmax;  /* piece threads per window: chunk / 2^piece_log + min(nb, chunk) (bounds the pieces) */
    uint64_t qmax;  /* partial-sum slots per window: max(1, 2 · chunk / 2^piece_log) */
} cz_msm_plan;

/* The plan of an MSM of n points; window 0: cz_d_msm_window(n), else
 * 1..CZ_MSM_WINDOW_MAX (the caller checks); chunk_log 0: the default,
 * values above CZ_MSM_CHUNK_LOG_MAX are clamped. */
CZ_HD void cz_d_msm_plan(cz_msm_plan *p, uint64_t n, unsigned window, unsigned chunk_log)
{
    p->c = window ? window : cz_d_msm_window(n);
    p->nwin = cz_d_msm_nwin(p->c);
    p->nb = (uint32_t)1 << (p->c - 1);
    p->G = p->nb < CZ_MSM_GROUPS_MAX ? p->nb : CZ_MSM_GROUPS_MAX;
    if (p->nb / CZ_MSM_GROUP_BUCKETS > p->G) p->G = p->nb / CZ_MSM_GROUP_BUCKETS;
    unsigned cl = chunk_log ? chunk_log : CZ_MSM_CHUNK_LOG_DEFAULT;
    if (cl > CZ_MSM_CHUNK_LOG_MAX) cl = CZ_MSM_CHUNK_LOG_MAX;
    p->chunk = (uint64_t)1 << cl;
    if (p->chunk > n) p->chunk = n ? n : 1;
    p->T = 1;
    while (p->T < CZ_MSM_ONES_THREADS_MAX && p->T * 2 <= n) p->T *= 2;
    /* Pieces of a window: sum over nonempty buckets of ceil(cnt / S) <=
     * sum (cnt / S + 1) <= entries / S + nonempty buckets, and entries <=
     * chunk (a point has at most one digit per window). Partial slots
     * exist only for buckets of two or more pieces (cnt > S), where
     * ceil(cnt / S) <= 2·floor(cnt / S), so they sum to <= 2·chunk / S. */
    unsigned lc = 0;
    while (((uint64_t)1 << lc) < p->chunk) lc++;
    p->piece_log = (lc + 1) / 2 > CZ_MSM_PIECE_LOG_MIN ? (lc + 1) / 2 : CZ_MSM_PIECE_LOG_MIN;
    uint64_t whole = p->chunk >> p->piece_log;
    p->pmax = whole + (p->nb < p->chunk ? p->nb : p->chunk);
    p->qmax = whole ? 2 * whole : 1;
}

#endif /* CUZK_CUDA_DEV_LAUNCH_H */
