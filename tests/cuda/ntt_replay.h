/*
 * The host replay of the GPU NTT, shared by tests/cuda/test_cuda_algo.c
 * and the CUDA host double (tests/cuda/double): the device's tables, and
 * a transform program (src/cuda/dev_algo.h, "transform programs") run as
 * kernels.cu launches it, with the kernels' own per-thread bodies.
 */
#ifndef CZ_TEST_CUDA_NTT_REPLAY_H
#define CZ_TEST_CUDA_NTT_REPLAY_H

#include "cuda/dev_algo.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A domain's tables as czc_domain_build (kernels.cu) makes them: tw[j] =
 * w^j for j <= n/2 (expanded from two-level tables of w, as k_twiddle
 * does), and the two-level power tables of g = 7, g^-1, s = w_2n and s^-1
 * (lo[k]: 2^16 entries, hi[k]: (n >> 16) + 1), 1/n and 1/(2n). False when
 * out of host memory. */
static inline bool czr_domain_fill(unsigned log_n, cz_fr *tw, cz_fr *const lo[4], cz_fr *const hi[4], cz_fr *n_inv,
                                   cz_fr *inv_2n)
{
    uint64_t n = (uint64_t)1 << log_n, ntw = n / 2 + 1;
    uint64_t nhi_tw = (ntw >> CZ_DEV_TAB_BITS) + 1, nhi = (n >> CZ_DEV_TAB_BITS) + 1;
    cz_fr w, base[4], one = CZ_FR_ONE;
    cz_fr_root_of_unity(&w, log_n);
    cz_fr_from_u64(&base[0], 7);
    cz_fr_inv(&base[1], &base[0]);
    cz_fr_root_of_unity(&base[2], log_n + 1);
    cz_fr_inv(&base[3], &base[2]);
    cz_fr_from_u64(n_inv, n);
    cz_fr_inv(n_inv, n_inv);
    cz_fr_from_u64(inv_2n, 2 * n);
    cz_fr_inv(inv_2n, inv_2n);
    cz_fr *wl = malloc(CZ_DEV_TAB_LO * sizeof *wl), *wh = malloc(nhi_tw * sizeof *wh);
    if (!wl || !wh) {
        free(wl);
        free(wh);
        return false;
    }
    cz_d_pow_tables(wl, CZ_DEV_TAB_LO, wh, nhi_tw, &w, &one);
    for (uint64_t j = 0; j < ntw; j++) cz_d_ntt_twiddle(tw, wl, wh, j);
    free(wl);
    free(wh);
    for (int k = 0; k < 4; k++) cz_d_pow_tables(lo[k], CZ_DEV_TAB_LO, hi[k], nhi, &base[k], &one);
    return true;
}

/* Runs the ns steps of a transform program on arrays of 2^log_n elements
 * (plan made with tiles of 2^tile_log; tw: the domain's twiddles) as
 * kernels.cu launches them: each bit-reversal or element step thread by
 * thread; each tile step block by block and, inside a block, phase by
 * phase (load; each stage of seq[0]; mid; each stage of seq[1]; store) as
 * __syncthreads separates them, the operations applied only where the
 * driver launches k_ntt_tile<true>. The shared tile is poisoned before
 * each block so that a phase reading an element no earlier phase of the
 * block wrote shows. False when out of host memory or when a step does
 * not fit the tile (a malformed program). */
static inline bool czr_run(const cz_ntt_step *st, unsigned ns, const cz_fr *tw, unsigned log_n, unsigned tile_log)
{
    uint64_t n = (uint64_t)1 << log_n;
    size_t tile = (size_t)1 << tile_log;
    cz_fr *sh = malloc(tile * sizeof *sh);
    if (!sh) return false;
    bool ok = true;
    for (unsigned s = 0; s < ns && ok; s++) {
        const cz_ntt_step *p = &st[s];
        if (p->kind == CZ_STEP_BITREV) {
            for (uint64_t i = 0; i < n; i++) cz_d_ntt_bitrev_op(p->x, log_n, i, &p->pre);
            continue;
        }
        if (p->kind == CZ_STEP_ELEMENT) {
            for (uint64_t i = 0; i < n; i++) cz_d_fuse_apply(&p->x[i], &p->pre, log_n, i);
            continue;
        }
        const cz_ntt_group *g = &p->g;
        if (g->k + g->r > tile_log || p->seq[0] == CZ_SEQ_NONE) {
            ok = false;
            break;
        }
        const cz_ntt_fuse none = { CZ_FUSE_NONE, NULL, NULL, NULL, { { 0 } } };
        bool fused = cz_d_ntt_step_fused(p);
        const cz_ntt_fuse *pre = fused ? &p->pre : &none, *mid = fused ? &p->mid : &none;
        const cz_ntt_fuse *post = fused ? &p->post : &none;
        for (uint64_t b = 0; b < cz_d_ntt_tiles(g, log_n); b++) {
            memset(sh, 0xa5, tile * sizeof *sh);
            for (unsigned t = 0; t < CZ_NTT_TILE_THREADS; t++) cz_d_ntt_tile_load(sh, p->x, g, log_n, b, t, pre);
            for (unsigned h = 0; h < 2; h++) {
                if (h == 1 && mid->op != CZ_FUSE_NONE)
                    for (unsigned t = 0; t < CZ_NTT_TILE_THREADS; t++) cz_d_ntt_tile_apply(sh, g, log_n, b, t, mid);
                for (unsigned q = 0; p->seq[h] != CZ_SEQ_NONE && q < g->k; q++)
                    for (unsigned t = 0; t < CZ_NTT_TILE_THREADS; t++)
                        cz_d_ntt_tile_seq_stage(sh, tw, g, log_n, b, q, t, p->seq[h]);
            }
            for (unsigned t = 0; t < CZ_NTT_TILE_THREADS; t++) cz_d_ntt_tile_store(p->x, sh, g, log_n, b, t, post);
        }
    }
    free(sh);
    return ok;
}

#endif
