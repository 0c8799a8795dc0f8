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
/* largest accepted forced window */
#define CZ_MSM_WINDOW_MAX 20u

/* blocks of CZ_DEV_BLOCK threads covering n items */
CZ_HD uint64_t cz_d_grid(uint64_t n) { return (n + CZ_DEV_BLOCK - 1) / CZ_DEV_BLOCK; }

/* Window width for n general points (GPU cost model: enough buckets to keep
 * ~10^5 threads busy, few enough that the reduction stays small):
 * clamp(floor(log2 n) - 4, 4, 16). */
CZ_HD unsigned cz_d_msm_window(uint64_t n)
{
    unsigned lg = 0;
    while (lg < 63 && ((uint64_t)1 << (lg + 1)) <= n) lg++;
    unsigned c = lg > 4 ? lg - 4 : 1;
    if (c < 4) c = 4;
    if (c > 16) c = 16;
    return c;
}

CZ_HD unsigned cz_d_msm_nwin(unsigned c) { return (256 + c - 1) / c; }

typedef struct {
    unsigned c;     /* window width */
    unsigned nwin;  /* ceil(256 / c) windows */
    uint32_t nb;    /* buckets per window: 2^(c-1) (|digit| = 1 .. 2^(c-1)) */
    uint32_t G;     /* reduction groups per window: min(nb, CZ_MSM_GROUPS_MAX), divides nb */
    uint64_t chunk; /* points per sorting pass (min(2^chunk_log, n)) */
    uint64_t T;     /* scalar = 1 threads: largest power of two <= min(n, 16384) */
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
    unsigned cl = chunk_log ? chunk_log : CZ_MSM_CHUNK_LOG_DEFAULT;
    if (cl > CZ_MSM_CHUNK_LOG_MAX) cl = CZ_MSM_CHUNK_LOG_MAX;
    p->chunk = (uint64_t)1 << cl;
    if (p->chunk > n) p->chunk = n ? n : 1;
    p->T = 1;
    while (p->T < CZ_MSM_ONES_THREADS_MAX && p->T * 2 <= n) p->T *= 2;
}

#endif /* CUZK_CUDA_DEV_LAUNCH_H */
