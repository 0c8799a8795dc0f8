/*
 * cuzk CUDA backend — the per-thread bodies of the kernels.
 *
 * Each kernel in kernels.cu is a thin wrapper: it computes its thread
 * index and calls one function of this file. The functions are CZ_HD
 * (see dev_arith.h), so tests/cuda/test_cuda_algo.c runs the same code on
 * the host by looping over the thread indices of a launch, and compares
 * the whole pipeline (NTT, quotient, MSM) with the CPU library. That is
 * valid because every kernel below is race-free by construction: the
 * threads of one launch write disjoint locations and read nothing another
 * thread of the same launch writes, except through CZ_ATOMIC_ADD_U32
 * (dev_intrin.h): the counting sort's count and scatter. The replay runs a
 * launch's threads one after the other, which serves the atomics in one
 * of the orders the device may serve them (bucket sums do not depend on
 * the order). The block scan's shared-memory phases are separate
 * functions so the replay can run them phase by phase (see below). The
 * launch parameters are in dev_launch.h, shared with the replay.
 *
 * NTT (n = 2^log_n, in place, natural order in and out): bit-reversal
 * permutation, then log_n radix-2 decimation-in-time stages; stage s
 * pairs i0 (bit s clear) with i1 = i0 + 2^s and uses twiddle
 * w^(j·2^(log_n-1-s)), j = i0 mod 2^s. The stages run in groups, each
 * group one pass through shared-memory tiles (see "NTT tiles" below).
 * The quotient also uses the decimation-in-frequency order of the same
 * pairs (natural in, bit-reversed out) and the DIT from bit-reversed
 * input, which together need no permutation pass.
 * The twiddle table holds
 * w^0 .. w^(n/2) (n/2 + 1 entries); the inverse transform uses
 * w^-J = w^(n-J) = -w^(n/2-J) from the same table.
 * Per-element factors (1/n, g^i, g^-i) come from two-level tables:
 * f(i) = hi[i >> 16] · lo[i & 0xffff].
 *
 * MSM (Pippenger, signed digits): digit w of scalar k is
 *   d = v + b(cw-1) - 2^c · b(cw+c-1),  v = bits [cw, cw+c) of k,
 * in [-2^(c-1), 2^(c-1)]; with k < 2^255 and c·nwin >= 256 the digits
 * sum to k (same recoding as the CPU MSM, src/msm). A nonzero digit puts
 * entry (point index | sign << 31) into bucket |d| - 1 of window w.
 * Scalars 0 and 1 put nothing into any bucket: 1s are summed by the
 * batch-addition path, 0s are dropped.
 */
#ifndef CUZK_CUDA_DEV_ALGO_H
#define CUZK_CUDA_DEV_ALGO_H

#include "cuda/dev_arith.h"
#include "cuda/dev_launch.h"
#include <string.h>

#define CZ_DEV_TAB_BITS 16
#define CZ_DEV_TAB_LO ((uint64_t)1 << CZ_DEV_TAB_BITS)
#define CZ_DEV_MSM_SIGN 0x80000000u

/* Device bytes of a domain's tables (czc_domain_build): the twiddles
 * w^0..w^(n/2) and four two-level power tables of 2^16 + (n >> 16) + 1
 * entries each. One formula for the device and for its host double. */
CZ_HD size_t cz_d_domain_bytes(unsigned log_n)
{
    uint64_t n = (uint64_t)1 << log_n;
    return (size_t)((n / 2 + 1) + 4 * (CZ_DEV_TAB_LO + (n >> CZ_DEV_TAB_BITS) + 1)) * sizeof(cz_fr);
}

CZ_HD unsigned cz_d_popc64(uint64_t v) { return (unsigned)CZ_POPCLL(v); }

CZ_HD uint64_t cz_d_bitrev(uint64_t i, unsigned log_n)
{
    if (log_n == 0) return 0;
    return CZ_BREVLL(i) >> (64 - log_n);
}

/* ---- NTT --------------------------------------------------------------- */

/* thread i < n: swap x[i] and x[bitrev(i)] once per pair */
CZ_HD void cz_d_ntt_bitrev(cz_fr *x, unsigned log_n, uint64_t i)
{
    uint64_t j = cz_d_bitrev(i, log_n);
    if (i < j) {
        cz_fr t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* ---- element operations fused into the transforms' passes ----------------
 * The per-element steps around a transform (the coset factors g^i, 1/n,
 * the quotient's s^i/n, a·b and (C − D)/2) are not passes of their own:
 * each is applied to an element as a tile pass loads it, between the two
 * stage sequences of a tile, or as the pass stores it (and the coset
 * forward factor as the bit-reversal pass moves the element), so the
 * element makes no extra round trip through global memory. i is the
 * element's global index in the array as it is at that moment (for the
 * bit-reversal pass, before the swap). Field products are exact, so the
 * result does not depend on where an operation is fused. */
enum {
    CZ_FUSE_NONE = 0,
    CZ_FUSE_SCALE,      /* v *= s · f(i)  (f from lo/hi; lo NULL: v *= s) */
    CZ_FUSE_SCALE_REV,  /* v *= s · f(bitrev(i)): coefficients a DIF inverse left bit-reversed */
    CZ_FUSE_MUL,        /* v *= y[i]: the quotient's products on the coset */
    CZ_FUSE_COMBINE_REV /* v = (y[i] − v · f(bitrev(i))) · s: the quotient's last step */
};

typedef struct {
    int op;
    const cz_fr *lo, *hi; /* two-level power tables, f(k) = hi[k >> 16] · lo[k & 0xffff] */
    const cz_fr *y;       /* MUL, COMBINE_REV: the other array, same indices */
    cz_fr s;
} cz_ntt_fuse;

CZ_HD void cz_d_fuse_apply(cz_fr *v, const cz_ntt_fuse *op, unsigned log_n, uint64_t i)
{
    cz_fr f, t;
    uint64_t k;
    switch (op->op) {
    case CZ_FUSE_SCALE:
        if (op->lo) {
            cz_d_fr_mul(&f, &op->hi[i >> CZ_DEV_TAB_BITS], &op->lo[i & (CZ_DEV_TAB_LO - 1)]);
            cz_d_fr_mul(&f, &f, &op->s);
        } else {
            f = op->s;
        }
        cz_d_fr_mul(v, v, &f);
        break;
    case CZ_FUSE_SCALE_REV:
        k = cz_d_bitrev(i, log_n);
        cz_d_fr_mul(&f, &op->hi[k >> CZ_DEV_TAB_BITS], &op->lo[k & (CZ_DEV_TAB_LO - 1)]);
        cz_d_fr_mul(&f, &f, &op->s);
        cz_d_fr_mul(v, v, &f);
        break;
    case CZ_FUSE_MUL:
        cz_d_fr_mul(v, v, &op->y[i]);
        break;
    case CZ_FUSE_COMBINE_REV:
        /* v = the unscaled inverse transform n·s^k·D_k, y = n·C_k, f = s^-k
         * and s = 1/(2n): H_k = (C_k − D_k)/2 */
        k = cz_d_bitrev(i, log_n);
        cz_d_fr_mul(&f, &op->hi[k >> CZ_DEV_TAB_BITS], &op->lo[k & (CZ_DEV_TAB_LO - 1)]);
        cz_d_fr_mul(&t, v, &f);
        cz_d_fr_sub(&t, &op->y[i], &t);
        cz_d_fr_mul(v, &t, &op->s);
        break;
    default:
        break;
    }
}

/* thread i < n: the bit-reversal pass with op applied to each element
 * (with its index before the move) */
CZ_HD void cz_d_ntt_bitrev_op(cz_fr *x, unsigned log_n, uint64_t i, const cz_ntt_fuse *op)
{
    uint64_t j = cz_d_bitrev(i, log_n);
    if (i > j) return;
    cz_fr u = x[i];
    cz_d_fuse_apply(&u, op, log_n, i);
    if (i == j) {
        x[i] = u;
        return;
    }
    cz_fr v = x[j];
    cz_d_fuse_apply(&v, op, log_n, j);
    x[i] = v;
    x[j] = u;
}

/* ---- NTT tiles (the driver's transform) ----------------------------------
 * One launch per stage group of cz_d_ntt_plan (dev_launch.h): block b owns
 * a tile of 2^(k+r) elements, loads it into shared memory, runs the k
 * stages there with a barrier after each, and stores it back. In tile
 * coordinates an element is e = mid · 2^r + l (mid < 2^k, l < 2^r); its
 * global index is
 *   i = hi · 2^(s0+k) + mid · 2^s0 + lo_grp · 2^r + l,
 * where block b = hi · 2^(s0-r) + lo_grp. Stage s0 + j pairs mid and
 * mid + 2^j (bit j of mid clear), i.e. global i and i + 2^(s0+j): the
 * radix-2 butterfly of cz_d_ntt_butterfly with the same twiddle, so the
 * transform is the same sequence of field operations, in another order
 * across independent butterflies. The kernel runs three phase functions
 * (load; k × stage, each followed by __syncthreads; store), thread t of
 * CZ_NTT_TILE_THREADS doing items t, t + THREADS, ...; the replay runs
 * each phase for every thread of the block before the next. */
CZ_HD uint64_t cz_d_ntt_tile_index(const cz_ntt_group *g, uint64_t b, uint64_t e)
{
    uint64_t lo_grp = b & (((uint64_t)1 << (g->s0 - g->r)) - 1), hi = b >> (g->s0 - g->r);
    uint64_t l = e & (((uint64_t)1 << g->r) - 1), mid = e >> g->r;
    return (hi << (g->s0 + g->k)) | (mid << g->s0) | (lo_grp << g->r) | l;
}

/* blocks of a group's launch: n / 2^(k+r) */
CZ_HD uint64_t cz_d_ntt_tiles(const cz_ntt_group *g, unsigned log_n) { return (uint64_t)1 << (log_n - g->k - g->r); }

/* phase 1, thread t of block b: sh[e] = op(x[index(e)]) */
CZ_HD void cz_d_ntt_tile_load(cz_fr *sh, const cz_fr *x, const cz_ntt_group *g, unsigned log_n, uint64_t b,
                              unsigned t, const cz_ntt_fuse *op)
{
    uint64_t size = (uint64_t)1 << (g->k + g->r);
    for (uint64_t e = t; e < size; e += CZ_NTT_TILE_THREADS) {
        uint64_t i = cz_d_ntt_tile_index(g, b, e);
        sh[e] = x[i];
        cz_d_fuse_apply(&sh[e], op, log_n, i);
    }
}

/* between the stage sequences of a fused tile pass, thread t of block b:
 * sh[e] = op(sh[e]) with e's global index */
CZ_HD void cz_d_ntt_tile_apply(cz_fr *sh, const cz_ntt_group *g, unsigned log_n, uint64_t b, unsigned t,
                               const cz_ntt_fuse *op)
{
    uint64_t size = (uint64_t)1 << (g->k + g->r);
    for (uint64_t e = t; e < size; e += CZ_NTT_TILE_THREADS)
        cz_d_fuse_apply(&sh[e], op, log_n, cz_d_ntt_tile_index(g, b, e));
}

/* phase 2, stage s0 + j (j < k), thread t of block b */
CZ_HD void cz_d_ntt_tile_stage(cz_fr *sh, const cz_fr *tw, const cz_ntt_group *g, unsigned log_n, uint64_t b,
                               unsigned j, unsigned t, bool inverse)
{
    uint64_t nbf = (uint64_t)1 << (g->k - 1 + g->r), rmask = ((uint64_t)1 << g->r) - 1;
    uint64_t lo_grp = b & (((uint64_t)1 << (g->s0 - g->r)) - 1);
    unsigned s = g->s0 + j;
    for (uint64_t u = t; u < nbf; u += CZ_NTT_TILE_THREADS) {
        uint64_t l = u & rmask, m = u >> g->r;
        uint64_t mlo = m & (((uint64_t)1 << j) - 1);
        uint64_t mid0 = ((m >> j) << (j + 1)) | mlo;
        uint64_t e0 = (mid0 << g->r) | l, e1 = e0 + ((uint64_t)1 << (j + g->r));
        /* i0 mod 2^s: the low j bits of mid above the s0 bits of lo */
        uint64_t J = ((mlo << g->s0) | (lo_grp << g->r) | l) << (log_n - 1 - s);
        cz_fr w, uu, v;
        if (inverse) {
            cz_d_fr_neg(&w, &tw[((uint64_t)1 << (log_n - 1)) - J]);
        } else {
            w = tw[J];
        }
        uu = sh[e0];
        cz_d_fr_mul(&v, &sh[e1], &w);
        cz_d_fr_add(&sh[e0], &uu, &v);
        cz_d_fr_sub(&sh[e1], &uu, &v);
    }
}

/* phase 2 of a decimation-in-frequency transform: stage s0 + j, the
 * tile's stages run j = k-1 down to 0 and the groups last to first
 * (stage log_n - 1 first). Natural order in, bit-reversed order out, no
 * permutation pass: x[i0], x[i1] <- u + v, (u - v)·w^(±J), the same
 * pairs and twiddle exponents as the DIT stage. */
CZ_HD void cz_d_ntt_tile_stage_dif(cz_fr *sh, const cz_fr *tw, const cz_ntt_group *g, unsigned log_n, uint64_t b,
                                   unsigned j, unsigned t, bool inverse)
{
    uint64_t nbf = (uint64_t)1 << (g->k - 1 + g->r), rmask = ((uint64_t)1 << g->r) - 1;
    uint64_t lo_grp = b & (((uint64_t)1 << (g->s0 - g->r)) - 1);
    unsigned s = g->s0 + j;
    for (uint64_t u = t; u < nbf; u += CZ_NTT_TILE_THREADS) {
        uint64_t l = u & rmask, m = u >> g->r;
        uint64_t mlo = m & (((uint64_t)1 << j) - 1);
        uint64_t mid0 = ((m >> j) << (j + 1)) | mlo;
        uint64_t e0 = (mid0 << g->r) | l, e1 = e0 + ((uint64_t)1 << (j + g->r));
        uint64_t J = ((mlo << g->s0) | (lo_grp << g->r) | l) << (log_n - 1 - s);
        cz_fr uu = sh[e0], v = sh[e1], d;
        cz_d_fr_add(&sh[e0], &uu, &v);
        if (inverse) {
            /* (u - v)·w^-J = (v - u)·w^(n/2 - J) */
            cz_d_fr_sub(&d, &v, &uu);
            cz_d_fr_mul(&sh[e1], &d, &tw[((uint64_t)1 << (log_n - 1)) - J]);
        } else {
            cz_d_fr_sub(&d, &uu, &v);
            cz_d_fr_mul(&sh[e1], &d, &tw[J]);
        }
    }
}

/* phase 3, thread t of block b: x[index(e)] = op(sh[e]) */
CZ_HD void cz_d_ntt_tile_store(cz_fr *x, const cz_fr *sh, const cz_ntt_group *g, unsigned log_n, uint64_t b,
                               unsigned t, const cz_ntt_fuse *op)
{
    uint64_t size = (uint64_t)1 << (g->k + g->r);
    for (uint64_t e = t; e < size; e += CZ_NTT_TILE_THREADS) {
        uint64_t i = cz_d_ntt_tile_index(g, b, e);
        cz_fr v = sh[e];
        cz_d_fuse_apply(&v, op, log_n, i);
        x[i] = v;
    }
}

/* ---- transform programs -------------------------------------------------
 * A transform, and the quotient, is a short list of launches (steps),
 * built by the functions below for the driver (kernels.cu launches each
 * step) and for the host replay (tests/cuda/ntt_replay.h runs the same
 * list, in test_cuda_algo and in the CUDA host double), so the two cannot
 * drift apart. A tile step is one stage
 * group's pass (k_ntt_tile): load with `pre`, the stage sequence seq[0],
 * `mid`, the sequence seq[1], store with `post`; each phase ends at a
 * barrier. A bit-reversal step permutes x, applying `pre` to each element
 * as it moves. An element step applies `pre` to every element (only for
 * a transform that has no tile pass to carry it: n = 1).
 *
 * Passes over global memory of the 6-transform quotient with G stage
 * groups (G = 3 at 2^27): the coset scaling of a and b rides on the one
 * launch that ends the DIF inverse and starts the DIT forward transform
 * (both are group 0 with the same tiles), a·b on the load of a's last
 * inverse, the combination (C − D)/2 on its store: 6G − 1 launches (17 at
 * 2^27) where separate element passes took 6G + 5 (23). */
enum { CZ_SEQ_NONE = 0, CZ_SEQ_DIT = 1, CZ_SEQ_DIF = 2, CZ_SEQ_INV = 4 };
enum { CZ_STEP_TILE = 0, CZ_STEP_BITREV, CZ_STEP_ELEMENT };
/* transform orders (cz_d_ntt_program): DIT after a bit-reversal pass,
 * natural order in and out; DIT from input already bit-reversed (no
 * pass); DIF, natural in, bit-reversed out (no pass) */
enum { CZ_NTT_NAT = 0, CZ_NTT_REV_IN, CZ_NTT_DIF };

typedef struct {
    cz_fr *x;
    int kind;           /* CZ_STEP_* */
    cz_ntt_group g;     /* tile step: its stage group */
    unsigned seq[2];    /* tile step: CZ_SEQ_NONE or CZ_SEQ_DIT / CZ_SEQ_DIF, | CZ_SEQ_INV for w^-1 */
    cz_ntt_fuse pre, mid, post;
} cz_ntt_step;

/* the most steps one cz_d_ntt_program or cz_d_quotient_program call appends */
#define CZ_NTT_STEPS_MAX (2 * CZ_NTT_GROUPS_MAX + 2)

/* whether a tile step carries element operations (k_ntt_tile<true>; the
 * others run the variant without them) */
static inline bool cz_d_ntt_step_fused(const cz_ntt_step *p)
{
    return p->pre.op != CZ_FUSE_NONE || p->mid.op != CZ_FUSE_NONE || p->post.op != CZ_FUSE_NONE;
}

/* stage q (0 <= q < k) of the tile sequence seq */
CZ_HD void cz_d_ntt_tile_seq_stage(cz_fr *sh, const cz_fr *tw, const cz_ntt_group *g, unsigned log_n, uint64_t b,
                                   unsigned q, unsigned t, unsigned seq)
{
    bool inv = (seq & CZ_SEQ_INV) != 0;
    if (seq & CZ_SEQ_DIF) cz_d_ntt_tile_stage_dif(sh, tw, g, log_n, b, g->k - 1 - q, t, inv);
    else cz_d_ntt_tile_stage(sh, tw, g, log_n, b, q, t, inv);
}

static inline cz_ntt_step *cz_d_ntt_step_new(cz_ntt_step *st, unsigned *ns, cz_fr *x, int kind)
{
    cz_ntt_step *p = &st[(*ns)++];
    memset(p, 0, sizeof *p);
    p->x = x;
    p->kind = kind;
    return p;
}

static inline cz_ntt_step *cz_d_ntt_step_tile(cz_ntt_step *st, unsigned *ns, cz_fr *x, const cz_ntt_group *g,
                                              unsigned seq0, unsigned seq1)
{
    cz_ntt_step *p = cz_d_ntt_step_new(st, ns, x, CZ_STEP_TILE);
    p->g = *g;
    p->seq[0] = seq0;
    p->seq[1] = seq1;
    return p;
}

/* Appends to st[*ns ...] the launches of one radix-2 transform of x
 * (without the 1/n) in the given order, w^-1 if inverse, with pre (may be
 * NULL) fused into the first launch and post (may be NULL) into the
 * last. */
static inline void cz_d_ntt_program(cz_ntt_step *st, unsigned *ns, cz_fr *x, const cz_ntt_plan *pl, int order,
                                    bool inverse, const cz_ntt_fuse *pre, const cz_ntt_fuse *post)
{
    unsigned seq = (order == CZ_NTT_DIF ? CZ_SEQ_DIF : CZ_SEQ_DIT) | (inverse ? CZ_SEQ_INV : 0);
    if (order == CZ_NTT_NAT) {
        cz_ntt_step *p = cz_d_ntt_step_new(st, ns, x, CZ_STEP_BITREV);
        if (pre) p->pre = *pre;
        pre = NULL;
    } else if (pl->ngroups == 0 && pre) {
        cz_d_ntt_step_new(st, ns, x, CZ_STEP_ELEMENT)->pre = *pre;
        pre = NULL;
    }
    for (unsigned q = 0; q < pl->ngroups; q++) {
        const cz_ntt_group *g = &pl->g[order == CZ_NTT_DIF ? pl->ngroups - 1 - q : q];
        cz_ntt_step *p = cz_d_ntt_step_tile(st, ns, x, g, seq, CZ_SEQ_NONE);
        if (q == 0 && pre) p->pre = *pre;
    }
    if (post) {
        if (pl->ngroups == 0) cz_d_ntt_step_new(st, ns, x, CZ_STEP_ELEMENT)->pre = *post;
        else st[*ns - 1].post = *post;
    }
}

/* The four transforms of cuzk/ntt.h (czc_ntt): kind 0 forward, 1 inverse,
 * 2 coset forward, 3 coset inverse (the values of CZC_NTT_*), natural
 * order in and out: the coset factor g^i rides on the bit-reversal pass,
 * 1/n (and g^-i) on the last tile pass's store. */
enum { CZ_D_NTT_FWD = 0, CZ_D_NTT_INV, CZ_D_NTT_COSET_FWD, CZ_D_NTT_COSET_INV };
typedef struct {
    const cz_fr *g_lo, *g_hi, *gi_lo, *gi_hi; /* powers of g = 7 and of g^-1 */
    cz_fr n_inv;
} cz_d_coset_tabs;

static inline void cz_d_ntt_kind_program(cz_ntt_step *st, unsigned *ns, cz_fr *x, const cz_ntt_plan *pl, int kind,
                                         const cz_d_coset_tabs *tb)
{
    const cz_fr one = CZ_FR_ONE;
    cz_ntt_fuse cfwd = { CZ_FUSE_SCALE, tb->g_lo, tb->g_hi, NULL, one };
    cz_ntt_fuse inv = { CZ_FUSE_SCALE, NULL, NULL, NULL, tb->n_inv };
    cz_ntt_fuse cinv = { CZ_FUSE_SCALE, tb->gi_lo, tb->gi_hi, NULL, tb->n_inv };
    bool inverse = kind == CZ_D_NTT_INV || kind == CZ_D_NTT_COSET_INV;
    const cz_ntt_fuse *pre = kind == CZ_D_NTT_COSET_FWD ? &cfwd : NULL;
    const cz_ntt_fuse *post = kind == CZ_D_NTT_INV ? &inv : kind == CZ_D_NTT_COSET_INV ? &cinv : NULL;
    cz_d_ntt_program(st, ns, x, pl, CZ_NTT_NAT, inverse, pre, post);
}

/* The quotient's coset and scale tables (czc_domain's, or the replay's) */
typedef struct {
    const cz_fr *s_lo, *s_hi, *si_lo, *si_hi; /* powers of s = w_2n and of s^-1 */
    cz_fr n_inv, inv_2n;
} cz_d_quotient_tabs;

/* Appends the launches of part `part` of the quotient (cz_quotient_h) on
 * a, b, c, run in the order 0, 1, 2, 3:
 *   0, 1: a resp. b -> coefficients (DIF inverse, bit-reversed), times
 *         s^bitrev(i)/n, evaluated on the coset (DIT from bit-reversed
 *         input): natural order again, no permutation pass;
 *   2:    c -> n·C's coefficients, bit-reversed;
 *   3:    a·b on the coset, its DIF inverse n·s^k·D_k, then
 *         H_k = (n·C_k − n·D_k)/(2n) at the same positions, and one
 *         bit-reversal pass to natural order: a = H's coefficients. */
static inline void cz_d_quotient_program(cz_ntt_step *st, unsigned *ns, int part, cz_fr *a, cz_fr *b, cz_fr *c,
                                         const cz_ntt_plan *pl, const cz_d_quotient_tabs *tb)
{
    const unsigned G = pl->ngroups;
    if (part == 0 || part == 1) {
        cz_fr *x = part == 0 ? a : b;
        cz_ntt_fuse sc = { CZ_FUSE_SCALE_REV, tb->s_lo, tb->s_hi, NULL, tb->n_inv };
        for (unsigned q = G; q-- > 1;) cz_d_ntt_step_tile(st, ns, x, &pl->g[q], CZ_SEQ_DIF | CZ_SEQ_INV, CZ_SEQ_NONE);
        if (G == 0) cz_d_ntt_step_new(st, ns, x, CZ_STEP_ELEMENT)->pre = sc;
        else cz_d_ntt_step_tile(st, ns, x, &pl->g[0], CZ_SEQ_DIF | CZ_SEQ_INV, CZ_SEQ_DIT)->mid = sc;
        for (unsigned q = 1; q < G; q++) cz_d_ntt_step_tile(st, ns, x, &pl->g[q], CZ_SEQ_DIT, CZ_SEQ_NONE);
    } else if (part == 2) {
        cz_d_ntt_program(st, ns, c, pl, CZ_NTT_DIF, true, NULL, NULL);
    } else {
        cz_ntt_fuse mul = { CZ_FUSE_MUL, NULL, NULL, b, { { 0 } } };
        cz_ntt_fuse comb = { CZ_FUSE_COMBINE_REV, tb->si_lo, tb->si_hi, c, tb->inv_2n };
        cz_d_ntt_program(st, ns, a, pl, CZ_NTT_DIF, true, &mul, &comb);
        cz_d_ntt_step_new(st, ns, a, CZ_STEP_BITREV);
    }
}

/* The quotient on arrays of 2^log_n with tiles of 2^tile_log: its four
 * parts built in their order and each handed to run(ctx, steps, count)
 * (the driver launches them, the replay runs them on the host); stops at
 * the first part run refuses and returns false then. */
static inline bool cz_d_quotient_each(cz_fr *a, cz_fr *b, cz_fr *c, unsigned log_n, unsigned tile_log,
                                      const cz_d_quotient_tabs *tb,
                                      bool (*run)(void *ctx, const cz_ntt_step *st, unsigned ns), void *ctx)
{
    cz_ntt_plan pl;
    cz_d_ntt_plan(&pl, log_n, tile_log);
    for (int part = 0; part < 4; part++) {
        cz_ntt_step st[CZ_NTT_STEPS_MAX];
        unsigned ns = 0;
        cz_d_quotient_program(st, &ns, part, a, b, c, &pl, tb);
        if (!run(ctx, st, ns)) return false;
    }
    return true;
}

/* thread j <= n/2: tw[j] = w^j from the two-level tables of w's powers */
CZ_HD void cz_d_ntt_twiddle(cz_fr *tw, const cz_fr *lo, const cz_fr *hi, uint64_t j)
{
    cz_d_fr_mul(&tw[j], &hi[j >> CZ_DEV_TAB_BITS], &lo[j & (CZ_DEV_TAB_LO - 1)]);
}

/* Two-level power tables (built on the host, uploaded): lo[i] = base^i for
 * i < nlo (nlo <= 2^16), hi[k] = scale · base^(k·2^16) for k < nhi, so that
 * hi[i >> 16] · lo[i & 0xffff] = scale · base^i. */
CZ_HD void cz_d_pow_tables(cz_fr *lo, uint64_t nlo, cz_fr *hi, uint64_t nhi, const cz_fr *base, const cz_fr *scale)
{
    cz_fr acc;
    cz_d_fr_one(&acc);
    for (uint64_t i = 0; i < CZ_DEV_TAB_LO; i++) {
        if (i < nlo) lo[i] = acc;
        cz_d_fr_mul(&acc, &acc, base); /* ends as base^(2^16) */
    }
    cz_fr step = acc, h = *scale;
    for (uint64_t k = 0; k < nhi; k++) {
        hi[k] = h;
        cz_d_fr_mul(&h, &h, &step);
    }
}

/* true when row i is not satisfied (a_i·b_i != c_i) */
CZ_HD bool cz_d_row_unsatisfied(const cz_fr *a, const cz_fr *b, const cz_fr *c, uint64_t i)
{
    cz_fr t;
    cz_d_fr_mul(&t, &a[i], &b[i]);
    return !cz_d_fr_eq(&t, &c[i]);
}

/* ---- scalars ------------------------------------------------------------- */

/* thread i: out[i] = canonical(in[i]); out may be the same array as in */
CZ_HD void cz_d_scalar_from_mont(cz_scalar *out, const cz_fr *in, uint64_t i)
{
    cz_fr v = in[i];
    cz_d_fr_from_mont(&out[i], &v);
}

/* thread k < nsrc: if bit k of the bitmap is set, dst[prefix[k/64] +
 * popcount(bits of word k/64 below k)] = src[k]. prefix[w] = number of set
 * bits in words 0..w-1 (exclusive prefix, computed on the host). */
CZ_HD void cz_d_gather_density(cz_scalar *dst, const cz_scalar *src, const uint64_t *bitmap,
                               const uint32_t *prefix, uint64_t k)
{
    uint64_t word = bitmap[k >> 6];
    unsigned b = (unsigned)(k & 63);
    if (!((word >> b) & 1)) return;
    uint64_t below = b ? (word & (((uint64_t)1 << b) - 1)) : 0;
    dst[(uint64_t)prefix[k >> 6] + cz_d_popc64(below)] = src[k];
}

/* Host side of the gather: prefix[w] = set bits of bm in words 0..w-1
 * (bits past nbits ignored), over (nbits + 63) / 64 words. */
CZ_HD void cz_d_density_prefix(uint32_t *prefix, const uint64_t *bm, uint64_t nbits)
{
    uint32_t run = 0;
    uint64_t nw = (nbits + 63) / 64;
    for (uint64_t w = 0; w < nw; w++) {
        prefix[w] = run;
        uint64_t v = bm[w];
        if (w == nw - 1 && nbits % 64) v &= ((uint64_t)1 << (nbits % 64)) - 1;
        run += cz_d_popc64(v);
    }
}

/* ---- MSM ----------------------------------------------------------------- */

/* bits [pos, pos + len) of a 256-bit scalar, len <= 32, 0 past bit 255 */
CZ_HD uint32_t cz_d_scalar_bits(const cz_scalar *s, unsigned pos, unsigned len)
{
    if (pos >= 256) return 0;
    unsigned li = pos >> 6, sh = pos & 63;
    uint64_t v = s->l[li] >> sh;
    if (sh + len > 64 && li + 1 < 4) v |= s->l[li + 1] << (64 - sh);
    return (uint32_t)(v & (((uint64_t)1 << len) - 1));
}

/* signed digit of window w (window width c, 1 <= c <= 20) */
CZ_HD int32_t cz_d_msm_digit(const cz_scalar *s, unsigned w, unsigned c)
{
    unsigned pos = c * w;
    int32_t v = (int32_t)cz_d_scalar_bits(s, pos, c);
    int32_t lowb = pos ? (int32_t)cz_d_scalar_bits(s, pos - 1, 1) : 0;
    int32_t top = v >> (c - 1);
    return v + lowb - (top << c);
}

/* 0: scalar is 0, 1: scalar is 1, 2: anything else */
CZ_HD int cz_d_scalar_kind(const cz_scalar *s)
{
    uint64_t hi = s->l[1] | s->l[2] | s->l[3];
    if (hi) return 2;
    return s->l[0] > 1 ? 2 : (int)s->l[0];
}

/* Sum of bucket b of a window: entries [start, end) of the sorted array. */
CZ_HD void cz_d_msm_bucket_sum(cz_g1_xyzz *bucket, const uint32_t *sorted, uint64_t start, uint64_t end,
                               const cz_g1_affine *bases)
{
    cz_g1_xyzz acc = *bucket;
    for (uint64_t k = start; k < end; k++) {
        uint32_t e = sorted[k];
        cz_d_g1_xyzz_add_affine(&acc, &acc, &bases[e & ~CZ_DEV_MSM_SIGN], (e & CZ_DEV_MSM_SIGN) != 0);
    }
    *bucket = acc;
}

/* One group of a window's bucket reduction: buckets[lo..hi) of a window
 * (bucket b holds multiplier b + 1). out = sum_{b in [lo,hi)} (b+1)·B_b
 * = sum (b - lo + 1)·B_b (running sums, from the top) + lo·sum B_b. */
CZ_HD void cz_d_msm_reduce_group(cz_g1_xyzz *out, const cz_g1_xyzz *buckets, uint32_t lo, uint32_t hi)
{
    cz_g1_xyzz run, acc, t;
    cz_d_g1_xyzz_set_inf(&run);
    cz_d_g1_xyzz_set_inf(&acc);
    for (uint32_t b = hi; b > lo; b--) {
        cz_d_g1_xyzz_add(&run, &run, &buckets[b - 1]);
        cz_d_g1_xyzz_add(&acc, &acc, &run);
    }
    if (lo) {
        cz_d_g1_xyzz_mul_small(&t, &run, lo);
        cz_d_g1_xyzz_add(&acc, &acc, &t);
    }
    *out = acc;
}

/* thread i < half of row r: p[r·len + i] += p[r·len + i + half] */
CZ_HD void cz_d_xyzz_fold(cz_g1_xyzz *p, uint64_t len, uint64_t half, uint64_t r, uint64_t i)
{
    cz_g1_xyzz *row = p + r * len;
    cz_d_g1_xyzz_add(&row[i], &row[i], &row[i + half]);
}

/* thread t of T: partial[t] = sum of bases[i] with scalar 1, i = t mod T */
CZ_HD void cz_d_msm_ones(cz_g1_xyzz *partial, const cz_g1_affine *bases, const cz_scalar *scalars, uint64_t n,
                         uint64_t nthreads, uint64_t t)
{
    cz_g1_xyzz acc;
    cz_d_g1_xyzz_set_inf(&acc);
    for (uint64_t i = t; i < n; i += nthreads)
        if (cz_d_scalar_kind(&scalars[i]) == 1) cz_d_g1_xyzz_add_affine(&acc, &acc, &bases[i], false);
    partial[t] = acc;
}

/* Horner over windows (host side, after the device reduced each window):
 * out = ones + sum_w 2^(c·w) · win[w] */
CZ_HD void cz_d_msm_combine(cz_g1_xyzz *out, const cz_g1_xyzz *win, unsigned nwin, unsigned c,
                            const cz_g1_xyzz *ones)
{
    cz_g1_xyzz acc;
    cz_d_g1_xyzz_set_inf(&acc);
    for (unsigned w = nwin; w-- > 0;) {
        for (unsigned k = 0; k < c; k++) cz_d_g1_xyzz_dbl(&acc, &acc);
        cz_d_g1_xyzz_add(&acc, &acc, &win[w]);
    }
    if (ones) cz_d_g1_xyzz_add(&acc, &acc, ones);
    *out = acc;
}

/* ---- MSM kernels' per-thread bodies ------------------------------------------
 * One function per kernel of czc_msm_g1, with the kernel's bound check
 * inside, so kernels.cu and the host replay run exactly this code with the
 * grid of dev_launch.h. cnt / cursor / off rows have nb + 1 entries per
 * window (the last holds the window's total after the scan). */

/* count, thread i of cz_d_grid(len)·CZ_DEV_BLOCK: one atomic per nonzero digit */
CZ_HD void cz_d_msm_count(const cz_scalar *sc, uint64_t len, unsigned c, unsigned nwin, uint32_t nb,
                          uint32_t *cnt, uint64_t i)
{
    if (i >= len) return;
    cz_scalar s = sc[i];
    if (cz_d_scalar_kind(&s) != 2) return;
    for (unsigned w = 0; w < nwin; w++) {
        int32_t d = cz_d_msm_digit(&s, w, c);
        if (d) (void)CZ_ATOMIC_ADD_U32(&cnt[(uint64_t)w * (nb + 1) + (uint32_t)(d < 0 ? -d : d) - 1], 1u);
    }
}

/* scan: block b (window b) of CZ_MSM_SCAN_THREADS threads, exclusive prefix
 * of the window's nb + 1 counts in place and a copy into the cursors. The
 * kernel runs four phases separated by __syncthreads; the replay runs each
 * phase for all threads of the block before the next:
 *   1. scan_local: thread t sums its segment into sums[t];
 *   2. for off = 1, 2, 4, .. < CZ_MSM_SCAN_THREADS:
 *        v = scan_read(t, off) for every t; barrier; scan_add(t, v); barrier
 *      (Hillis-Steele inclusive scan of sums);
 *   3. scan_write: thread t writes its segment's exclusive offsets. */
CZ_HD void cz_d_msm_scan_segment(uint32_t nb, unsigned t, uint32_t *lo, uint32_t *hi)
{
    uint32_t len = nb + 1, seg = (len + CZ_MSM_SCAN_THREADS - 1) / CZ_MSM_SCAN_THREADS;
    uint32_t l = t * seg;
    *lo = l < len ? l : len;
    *hi = l + seg < len ? l + seg : len;
}

CZ_HD uint32_t cz_d_msm_scan_local(uint32_t *sums, const uint32_t *cnt, uint32_t nb, uint64_t b, unsigned t)
{
    const uint32_t *row = cnt + b * (nb + 1);
    uint32_t lo, hi, local = 0;
    cz_d_msm_scan_segment(nb, t, &lo, &hi);
    for (uint32_t k = lo; k < hi; k++) local += row[k];
    sums[t] = local;
    return local;
}

CZ_HD uint32_t cz_d_msm_scan_read(const uint32_t *sums, unsigned t, unsigned off) { return t >= off ? sums[t - off] : 0; }

CZ_HD void cz_d_msm_scan_add(uint32_t *sums, unsigned t, uint32_t v) { sums[t] += v; }

CZ_HD void cz_d_msm_scan_write(uint32_t *cnt, uint32_t *cursor, uint32_t nb, const uint32_t *sums, uint32_t local,
                               uint64_t b, unsigned t)
{
    uint32_t *row = cnt + b * (nb + 1), *cur = cursor ? cursor + b * (nb + 1) : NULL;
    uint32_t lo, hi, run = sums[t] - local;
    cz_d_msm_scan_segment(nb, t, &lo, &hi);
    for (uint32_t k = lo; k < hi; k++) {
        uint32_t v = row[k];
        row[k] = run;
        if (cur) cur[k] = run;
        run += v;
    }
}

/* scatter, thread i: entry (i | sign) at the bucket's next free slot; the
 * order inside a bucket is whatever order the atomics are served in */
CZ_HD void cz_d_msm_scatter(const cz_scalar *sc, uint64_t len, unsigned c, unsigned nwin, uint32_t nb,
                            uint32_t *cursor, uint32_t *sorted, uint64_t stride, uint64_t i)
{
    if (i >= len) return;
    cz_scalar s = sc[i];
    if (cz_d_scalar_kind(&s) != 2) return;
    for (unsigned w = 0; w < nwin; w++) {
        int32_t d = cz_d_msm_digit(&s, w, c);
        if (!d) continue;
        uint32_t pos = CZ_ATOMIC_ADD_U32(&cursor[(uint64_t)w * (nb + 1) + (uint32_t)(d < 0 ? -d : d) - 1], 1u);
        sorted[(uint64_t)w * stride + pos] = (uint32_t)i | (d < 0 ? CZ_DEV_MSM_SIGN : 0u);
    }
}

/* Accumulation in pieces (cz_msm_plan.piece_log; S = 2^piece_log). Per
 * chunk, after the scatter, off holds each window's bucket offsets:
 *   1. pieces_count, thread idx < nwin·(nb + 1): pc = ceil(cnt / S) pieces
 *      of bucket b, qc = pc when pc >= 2 (partial-sum slots) else 0; the
 *      row's last entry (b = nb) 0;
 *   2. the block scan over pc and over qc (cursor NULL): exclusive
 *      prefixes P and Q, P[nb] and Q[nb] the window's totals;
 *   3. piece, thread idx < nwin·pmax: piece p of window w adds entries
 *      [off[b] + k·S, min(off[b] + (k+1)·S, off[b+1])) of the bucket b
 *      with P[b] <= p < P[b+1] (k = p - P[b]); a one-piece bucket adds
 *      into its bucket directly, a piece of a larger one writes partial
 *      slot Q[b] + k of the window;
 *   4. merge, thread idx < nwin·nb: bucket += its partial slots (none for
 *      one-piece buckets).
 * Each piece thread writes only its own bucket or slot, each merge thread
 * only its bucket: race-free. */
CZ_HD void cz_d_msm_pieces_count(uint32_t *pc, uint32_t *qc, const uint32_t *off, unsigned nwin, uint32_t nb,
                                 unsigned piece_log, uint64_t idx)
{
    if (idx >= (uint64_t)nwin * (nb + 1)) return;
    uint64_t b = idx % (nb + 1);
    uint32_t np = 0;
    if (b < nb) {
        uint64_t cnt = (uint64_t)off[idx + 1] - off[idx];
        np = (uint32_t)((cnt + ((uint64_t)1 << piece_log) - 1) >> piece_log);
    }
    pc[idx] = np;
    qc[idx] = np > 1 ? np : 0;
}

/* the bucket b < nb with P[b] <= p < P[b+1] (P nondecreasing, P[0] = 0,
 * p < P[nb]); binary search, 15 steps at nb = 2^15 */
CZ_HD uint32_t cz_d_msm_piece_bucket(const uint32_t *P, uint32_t nb, uint32_t p)
{
    uint32_t lo = 0, hi = nb;
    while (hi - lo > 1) {
        uint32_t m = lo + (hi - lo) / 2;
        if (P[m] <= p) lo = m;
        else hi = m;
    }
    return lo;
}

CZ_HD void cz_d_msm_piece(cz_g1_xyzz *buckets, cz_g1_xyzz *partial, const uint32_t *sorted, const uint32_t *off,
                          const uint32_t *pp, const uint32_t *qp, const cz_g1_affine *bases, const cz_msm_plan *pl,
                          uint64_t stride, uint64_t idx)
{
    if (idx >= (uint64_t)pl->nwin * pl->pmax) return;
    uint64_t w = idx / pl->pmax, row = w * (pl->nb + 1);
    uint32_t p = (uint32_t)(idx % pl->pmax);
    const uint32_t *P = pp + row, *Q = qp + row, *o = off + row;
    if (p >= P[pl->nb]) return;
    uint32_t b = cz_d_msm_piece_bucket(P, pl->nb, p), k = p - P[b];
    uint64_t start = o[b] + ((uint64_t)k << pl->piece_log), end = start + ((uint64_t)1 << pl->piece_log);
    if (end > o[b + 1]) end = o[b + 1];
    if (Q[b + 1] == Q[b]) {
        cz_d_msm_bucket_sum(&buckets[w * pl->nb + b], sorted + w * stride, start, end, bases);
    } else {
        cz_g1_xyzz acc;
        cz_d_g1_xyzz_set_inf(&acc);
        cz_d_msm_bucket_sum(&acc, sorted + w * stride, start, end, bases);
        partial[w * pl->qmax + Q[b] + k] = acc;
    }
}

CZ_HD void cz_d_msm_merge(cz_g1_xyzz *buckets, const cz_g1_xyzz *partial, const uint32_t *qp, const cz_msm_plan *pl,
                          uint64_t idx)
{
    if (idx >= (uint64_t)pl->nwin * pl->nb) return;
    uint64_t w = idx / pl->nb, b = idx % pl->nb;
    const uint32_t *Q = qp + w * (pl->nb + 1);
    if (Q[b + 1] == Q[b]) return;
    cz_g1_xyzz acc = buckets[idx];
    for (uint32_t k = Q[b]; k < Q[b + 1]; k++) cz_d_g1_xyzz_add(&acc, &acc, &partial[w * pl->qmax + k]);
    buckets[idx] = acc;
}

/* reduce, thread idx < nwin·G: group idx % G of window idx / G */
CZ_HD void cz_d_msm_reduce(cz_g1_xyzz *grp, const cz_g1_xyzz *buckets, unsigned nwin, uint32_t nb, uint32_t G,
                           uint64_t idx)
{
    if (idx >= (uint64_t)nwin * G) return;
    uint64_t w = idx / G;
    uint32_t g = (uint32_t)(idx % G), per = nb / G;
    cz_d_msm_reduce_group(&grp[idx], buckets + w * nb, g * per, (g + 1) * per);
}

/* fold, thread idx < rows·half: one pairwise step of the tree sum of rows of len */
CZ_HD void cz_d_fold(cz_g1_xyzz *p, uint64_t len, uint64_t half, uint64_t rows, uint64_t idx)
{
    if (idx >= rows * half) return;
    cz_d_xyzz_fold(p, len, half, idx / half, idx % half);
}

/* scalar = 1 sums, thread t < T */
CZ_HD void cz_d_msm_ones_thread(cz_g1_xyzz *part, const cz_g1_affine *bases, const cz_scalar *sc, uint64_t n,
                                uint64_t T, uint64_t t)
{
    if (t < T) cz_d_msm_ones(part, bases, sc, n, T, t);
}

#endif /* CUZK_CUDA_DEV_ALGO_H */
