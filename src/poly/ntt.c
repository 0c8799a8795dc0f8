/*
 * NTT over Fr (include/cuzk/ntt.h).
 *
 * Algorithm: radix-2 Cooley–Tukey, organised for the cache.
 *  - DIF (decimation in frequency) takes natural order to bit-reversed
 *    order; DIT takes bit-reversed order back to natural order. The stage
 *    with half-size h uses the twiddles w_2h^t (t < h); t = 0 needs no
 *    multiplication and the inner loops skip it.
 *  - Stages whose butterflies span less than a block of 2^lb elements
 *    (lb <= CZ_NTT_LOG_BLOCK, 256 KiB of data, half of a 1 MiB L2) run
 *    block by block with the block resident in cache ("inner" stages).
 *    Their twiddles come from a fixed per-stage table (tab[h + t] = w_2h^t),
 *    contiguous per stage and independent of n.
 *  - The remaining "outer" stages run in passes of up to CZ_NTT_RADIX_LOG
 *    stages at a time (radix 8): a unit of work is a tile of TILE_COLS
 *    adjacent columns × 8 rows (rows at stride n/8^j), on which all the
 *    pass's stages run while it sits in L1. A 2^22 transform is thus 3
 *    outer passes + 1 inner pass over memory instead of 22. 8 rows at a
 *    power-of-two stride fill exactly one 8-way L1 set, which is why the
 *    radix is not higher. Passes are cut from the top (stages L-1..L-3,
 *    L-4..L-6, ...) so every pass top H is 2^(L-1-3j) whatever the block
 *    size; pass j reads its twiddles w_2H^x from a table of its own
 *    (otab[j], H+1 entries; otab[0] is the table of powers w^0..w^(n/2)),
 *    with the pass's three stages at strides 1, 2, 4 in it. (Reading the
 *    lower stages' twiddles out of w^0..w^(n/2) at stride n/2h cost one
 *    cache line per butterfly: ~8% of a 2^22 transform.) The extra tables
 *    hold n/16 + n/128 + ... elements.
 *  - Inverse twiddles come from the same tables: w_2H^-x = -w_2H^(H-x), so
 *    an inverse butterfly multiplies by w_2H^(H-x) and swaps its add and
 *    sub. (w_2H^H = -1 is stored so x = 0 needs no special case.)
 *  - Natural order in and out needs one bit-reversal permutation per
 *    transform; it is done tile-wise (16×16 tiles through a small buffer)
 *    so it streams through memory. The quotient needs only six transforms
 *    (its coset is s·<w> with s = w_2n: see cz_quotient_h) and avoids five
 *    of its six permutations: inverse transforms there run DIF (natural ->
 *    bit-reversed coefficients), the coset scaling is applied in
 *    bit-reversed order (s^rev(p) = TL[p_lo]·TH[p_hi], two sqrt(n)
 *    tables), and the forward transforms run DIT (bit-reversed -> natural
 *    evaluations). The inner stages of those two transforms and the coset
 *    scaling between them run back to back on each cache block of a, b and
 *    c (one pass over memory instead of three, and one factor s^rev(p)/n
 *    per position shared by a and b).
 *  - Cost per butterfly: one cz_fr_mul call (the ff back-end) plus an
 *    inlined add and sub; on x86-64 those are short inline-asm carry
 *    chains (the generic unsigned __int128 versions spilled to the stack
 *    and cost a third of the butterfly). The coset scaling costs 2
 *    multiplications per element (1.5 in the quotient's forward half);
 *    a full table of s^i would save one but cost 32 bytes per point.
 *  - On CPUs with AVX-512 IFMA the butterflies run eight at a time in
 *    vector lanes (ntt_x8.c, ~2x the scalar speed): every run of >= 8
 *    consecutive butterflies (outer rows of TILE_COLS, inner stages with
 *    h >= 8) and the scalings; the inner stages h = 1, 2, 4 stay scalar.
 *    The kernels read and write canonical elements, so results are
 *    bit-identical either way (cz_ntt_set_simd(false) forces scalar).
 *    Without IFMA the same runs go sixteen at a time through the AVX2 +
 *    MULX Fr block (ntt_x16.c) where the process measures that it pays
 *    (ntt_lanes.c; ~12 % off a 2^20 quotient on a Zen 4).
 * Threads: every pass is split into independent units (tiles, blocks,
 * rows) run through cz_pool_parallel_range; the split depends only on n
 * and the pool size, and the arithmetic is exact, so results are identical
 * for every pool. With more than one thread, smaller blocks are used for
 * small n so that every thread gets work.
 */
#include "cuzk/ntt.h"
#include "ff/mont.h"
#include "ff/mont_adx.h"
#include "ff/ff_internal.h"
#include "ntt_arith.h"
#include "ntt_x8.h"

#include <stdlib.h>
#include <string.h>

#define CZ_NTT_LOG_BLOCK 13 /* inner block: 2^13 × 32 B = 256 KiB */
#define CZ_NTT_LOG_BLOCK_MIN 8
#define CZ_NTT_RADIX_LOG 3 /* outer stages per pass */
#define TILE_COLS 16       /* columns per outer tile (512 B per row) */
#define BR_LOG 4           /* bit-reversal tile: 16 × 16 elements */

#if CZ_NTT_LOG_BLOCK_MIN < 4 || CZ_NTT_LOG_BLOCK < CZ_NTT_LOG_BLOCK_MIN
#error "bad NTT block size"
#endif
#if (1 << CZ_NTT_LOG_BLOCK_MIN) < TILE_COLS
#error "outer stages need at least TILE_COLS columns"
#endif

struct cz_ntt_domain {
    unsigned log_n;
    size_t n;
    cz_fr *w;                   /* w^0 .. w^(n/2): n/2 + 1 entries */
    /* Per-pass twiddles of the outer stages: pass j has top stage
     * H_j = 2^(log_n - 1 - 3j) and otab[j][x] = w_2H^x, x <= H_j
     * (= w[x·2^(3j)]); otab[0] is w itself. */
    cz_fr *otab[CZ_NTT_MAX_LOG_N / CZ_NTT_RADIX_LOG + 1];
    unsigned n_otab;
    cz_fr *tab_fwd, *tab_inv;   /* [h + t] = w_2h^(±t), 1 <= h < nb_max, t < h */
    size_t nb_max;              /* min(n, 2^CZ_NTT_LOG_BLOCK) */
    unsigned cs;                /* coset table split: low cs bits / high log_n - cs */
    cz_fr *tl_s, *th_s;         /* s^rev(p) = tl[p_lo]·th[p_hi], s = w_2n (the quotient's coset) */
    cz_fr *tl_si, *th_si;       /* the same for s^-1 */
    cz_fr n_inv, g, g_inv, inv_2n; /* 1/n, 7, 1/7 (the public coset transforms), 1/(2n) */
};

static size_t rev_bits(size_t v, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) {
        r = (r << 1) | (v & 1);
        v >>= 1;
    }
    return r;
}

static void fr_pow_u64(cz_fr *r, const cz_fr *a, uint64_t e)
{
    cz_fr_pow(r, a, &e, 1);
}

/* ---- domain -------------------------------------------------------------- */

typedef struct {
    cz_fr *dst;
    cz_fr base;
} powers_ctx;

/* dst[i] = base^i over [lo, hi) */
static void powers_range(void *arg, size_t lo, size_t hi)
{
    powers_ctx *c = arg;
    cz_fr acc;
    fr_pow_u64(&acc, &c->base, lo);
    for (size_t i = lo; i < hi; i++) {
        c->dst[i] = acc;
        fmul(&acc, &acc, &c->base);
    }
}

size_t cz_ntt_domain_memory(unsigned log_n)
{
    if (log_n > CZ_NTT_MAX_LOG_N) return 0;
    size_t n = (size_t)1 << log_n;
    size_t nb = log_n < CZ_NTT_LOG_BLOCK ? n : (size_t)1 << CZ_NTT_LOG_BLOCK;
    unsigned cs = log_n / 2;
    size_t elems = (n / 2 + 1) + 2 * nb + 2 * (((size_t)1 << cs) + ((size_t)1 << (log_n - cs)));
    for (unsigned j = 1; log_n >= 1 + CZ_NTT_RADIX_LOG * j + CZ_NTT_LOG_BLOCK_MIN; j++)
        elems += ((size_t)1 << (log_n - 1 - CZ_NTT_RADIX_LOG * j)) + 1;
    return sizeof(cz_ntt_domain) + elems * sizeof(cz_fr);
}

cz_status cz_ntt_domain_create(cz_ntt_domain **out, unsigned log_n, cz_pool *pool)
{
    cz__ntt_lanes_settle();
    if (!out) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (log_n > CZ_NTT_MAX_LOG_N) return CZ_ERR_INVALID_ARG;
    if (memcmp(FR_M, CZ_FR_MODULUS, sizeof FR_M) != 0) return CZ_ERR_INTERNAL;
    cz_ntt_domain *d = calloc(1, sizeof *d);
    if (!d) return CZ_ERR_NOMEM;
    size_t n = (size_t)1 << log_n;
    d->log_n = log_n;
    d->n = n;
    d->nb_max = log_n < CZ_NTT_LOG_BLOCK ? n : (size_t)1 << CZ_NTT_LOG_BLOCK;
    d->cs = log_n / 2;
    size_t nl = (size_t)1 << d->cs, nh = (size_t)1 << (log_n - d->cs);
    d->w = malloc((n / 2 + 1) * sizeof(cz_fr));
    d->tab_fwd = malloc(d->nb_max * sizeof(cz_fr));
    d->tab_inv = malloc(d->nb_max * sizeof(cz_fr));
    d->tl_s = malloc(nl * sizeof(cz_fr));
    d->tl_si = malloc(nl * sizeof(cz_fr));
    d->th_s = malloc(nh * sizeof(cz_fr));
    d->th_si = malloc(nh * sizeof(cz_fr));
    if (!d->w || !d->tab_fwd || !d->tab_inv || !d->tl_s || !d->tl_si || !d->th_s || !d->th_si) {
        cz_ntt_domain_free(d);
        return CZ_ERR_NOMEM;
    }

    cz_fr w;
    cz_fr_root_of_unity(&w, log_n);
    powers_ctx pc = {d->w, w};
    cz_pool_parallel_range(pool, 0, n / 2 + 1, 1 << 14, powers_range, &pc);
    d->otab[0] = d->w;
    d->n_otab = 1;
    for (unsigned j = 1; log_n >= 1 + CZ_NTT_RADIX_LOG * j + CZ_NTT_LOG_BLOCK_MIN; j++) {
        size_t H = (size_t)1 << (log_n - 1 - CZ_NTT_RADIX_LOG * j);
        cz_fr *t = malloc((H + 1) * sizeof(cz_fr));
        if (!t) {
            cz_ntt_domain_free(d);
            return CZ_ERR_NOMEM;
        }
        for (size_t x = 0; x <= H; x++) t[x] = d->w[x << (CZ_NTT_RADIX_LOG * j)];
        d->otab[j] = t;
        d->n_otab = j + 1;
    }

    /* per-stage tables for the inner stages: w_2h = root_of_unity(log2 2h) */
    d->tab_fwd[0] = CZ_FR_ONE; /* unused */
    d->tab_inv[0] = CZ_FR_ONE;
    for (unsigned lh = 0; ((size_t)1 << lh) < d->nb_max; lh++) {
        size_t h = (size_t)1 << lh;
        cz_fr r, ri;
        cz_fr_root_of_unity(&r, lh + 1);
        cz_fr_inv(&ri, &r);
        cz_fr a = CZ_FR_ONE, ai = CZ_FR_ONE;
        for (size_t t = 0; t < h; t++) {
            d->tab_fwd[h + t] = a;
            d->tab_inv[h + t] = ai;
            fmul(&a, &a, &r);
            fmul(&ai, &ai, &ri);
        }
    }

    cz_fr_from_u64(&d->g, 7);
    cz_fr_inv(&d->g_inv, &d->g);
    cz_fr nf;
    cz_fr_from_u64(&nf, 1);
    for (unsigned i = 0; i < log_n; i++) cz_fr_dbl(&nf, &nf);
    cz_fr_inv(&d->n_inv, &nf);
    cz_fr_dbl(&nf, &nf);
    cz_fr_inv(&d->inv_2n, &nf);

    /* the quotient's coset tables in bit-reversed order (see the top
     * comment), for s = w_2n, a square root of w (log_n + 1 <= 32, Fr's
     * two-adicity) */
    cz_fr sr, sr_i;
    cz_fr_root_of_unity(&sr, log_n + 1);
    cz_fr_inv(&sr_i, &sr);
    unsigned lo_bits = d->cs, hi_bits = log_n - d->cs;
    /* tl[rev(i)] = (s^(2^hi_bits))^i, th[rev(i)] = s^i: running products */
    cz_fr step, step_i, acc = CZ_FR_ONE, acc_i = CZ_FR_ONE;
    fr_pow_u64(&step, &sr, (uint64_t)1 << hi_bits);
    fr_pow_u64(&step_i, &sr_i, (uint64_t)1 << hi_bits);
    for (size_t i = 0; i < nl; i++) {
        size_t x = rev_bits(i, lo_bits);
        d->tl_s[x] = acc;
        d->tl_si[x] = acc_i;
        fmul(&acc, &acc, &step);
        fmul(&acc_i, &acc_i, &step_i);
    }
    acc = acc_i = CZ_FR_ONE;
    for (size_t i = 0; i < nh; i++) {
        size_t y = rev_bits(i, hi_bits);
        d->th_s[y] = acc;
        d->th_si[y] = acc_i;
        fmul(&acc, &acc, &sr);
        fmul(&acc_i, &acc_i, &sr_i);
    }
    *out = d;
    return CZ_OK;
}

void cz_ntt_domain_free(cz_ntt_domain *d)
{
    if (!d) return;
    for (unsigned j = 1; j < d->n_otab; j++) free(d->otab[j]);
    free(d->w);
    free(d->tab_fwd);
    free(d->tab_inv);
    free(d->tl_s);
    free(d->tl_si);
    free(d->th_s);
    free(d->th_si);
    free(d);
}

unsigned cz_ntt_domain_log_n(const cz_ntt_domain *d) { return d->log_n; }
size_t cz_ntt_domain_size(const cz_ntt_domain *d) { return d->n; }

bool cz_ntt_simd_available(void) { return cz__ntt_v_preferred() != CZ_NTT_V_NONE; }
bool cz_ntt_simd_enabled(void) { return cz__ntt_x8_on != 0; }
void cz_ntt_set_simd(bool on)
{
    cz__ntt_lanes_user(on);
    cz__ntt_x8_on = on ? cz__ntt_v_preferred() : CZ_NTT_V_NONE;
}

/* ---- kernels ------------------------------------------------------------- */

/* All stages h < nb of a DIF on one block of nb elements. */
static void inner_dif(cz_fr *x, size_t nb, const cz_fr *tab)
{
    for (size_t h = nb / 2; h >= 1; h >>= 1) {
        const cz_fr *tw = tab + h;
        if (h >= 8 && cz__ntt_x8_on) {
            for (size_t b = 0; b < nb; b += 2 * h) cz__ntt_v_dif(x + b, x + b + h, h, tw, 1, false);
            continue;
        }
        for (size_t b = 0; b < nb; b += 2 * h) {
            cz_fr *p0 = x + b, *p1 = x + b + h;
            cz_fr u = p0[0], v = p1[0];
            fadd(&p0[0], &u, &v);
            fsub(&p1[0], &u, &v);
            for (size_t t = 1; t < h; t++) {
                cz_fr d;
                u = p0[t];
                v = p1[t];
                fadd(&p0[t], &u, &v);
                fsub(&d, &u, &v);
                fmul(&p1[t], &d, &tw[t]);
            }
        }
    }
}

/* All stages h < nb of a DIT on one block of nb elements. */
static void inner_dit(cz_fr *x, size_t nb, const cz_fr *tab)
{
    for (size_t h = 1; h < nb; h <<= 1) {
        const cz_fr *tw = tab + h;
        if (h >= 8 && cz__ntt_x8_on) {
            for (size_t b = 0; b < nb; b += 2 * h) cz__ntt_v_dit(x + b, x + b + h, h, tw, 1, false);
            continue;
        }
        for (size_t b = 0; b < nb; b += 2 * h) {
            cz_fr *p0 = x + b, *p1 = x + b + h;
            cz_fr u = p0[0], v = p1[0];
            fadd(&p0[0], &u, &v);
            fsub(&p1[0], &u, &v);
            for (size_t t = 1; t < h; t++) {
                /* load u after the (opaque) call: nothing lives across it */
                fmul(&v, &p1[t], &tw[t]);
                u = p0[t];
                fadd(&p0[t], &u, &v);
                fsub(&p1[t], &u, &v);
            }
        }
    }
}

typedef struct {
    const cz_ntt_domain *d;
    cz_fr *x;
    bool inv;
    /* inner passes */
    size_t nb;
    const cz_fr *pre_scale;  /* DIT: multiply the block by this first */
    const cz_fr *post_coset; /* DIF: scale by this·s^(±rev(p)) afterwards */
    bool post_coset_inv;
    const cz_fr *post_sub_from; /* DIF, after post_coset: x[p] = post_sub_from[p] - x[p] */
    /* outer passes: stages h = H, H/2, ..., H/2^(k-1) */
    unsigned log_H, k;
} pass_ctx;

/* x[p] *= scale · s^(±rev(p)) for p in [lo, hi), lo and hi multiples of
 * 2^cs or the whole of a row. */
static void coset_bitrev_scale(const cz_ntt_domain *d, cz_fr *x, size_t lo, size_t hi, const cz_fr *scale,
                               bool inv)
{
    const cz_fr *tl = inv ? d->tl_si : d->tl_s, *th = inv ? d->th_si : d->th_s;
    size_t mask = ((size_t)1 << d->cs) - 1;
    size_t p = lo;
    while (p < hi) {
        size_t row_end = (p | mask) + 1;
        if (row_end > hi) row_end = hi;
        cz_fr f;
        fmul(&f, &th[p >> d->cs], scale);
        if (cz__ntt_x8_on && ((row_end - p) & 7) == 0) {
            cz_fr *xs[1] = {x};
            cz__ntt_v_scale_tab(xs, 1, p, row_end - p, &tl[p & mask], &f);
            p = row_end;
            continue;
        }
        for (; p < row_end; p++) {
            cz_fr t;
            fmul(&t, &tl[p & mask], &f);
            fmul(&x[p], &x[p], &t);
        }
    }
}

static void inner_dif_units(void *arg, size_t lo, size_t hi)
{
    pass_ctx *c = arg;
    const cz_fr *tab = c->inv ? c->d->tab_inv : c->d->tab_fwd;
    for (size_t u = lo; u < hi; u++) {
        cz_fr *blk = c->x + u * c->nb;
        inner_dif(blk, c->nb, tab);
        if (c->post_coset)
            coset_bitrev_scale(c->d, c->x, u * c->nb, (u + 1) * c->nb, c->post_coset, c->post_coset_inv);
        if (c->post_sub_from)
            for (size_t i = 0; i < c->nb; i++) fsub(&blk[i], &c->post_sub_from[u * c->nb + i], &blk[i]);
    }
}

static void inner_dit_units(void *arg, size_t lo, size_t hi)
{
    pass_ctx *c = arg;
    const cz_fr *tab = c->inv ? c->d->tab_inv : c->d->tab_fwd;
    for (size_t u = lo; u < hi; u++) {
        cz_fr *blk = c->x + u * c->nb;
        if (c->pre_scale && cz__ntt_x8_on && (c->nb & 7) == 0)
            cz__ntt_v_scale(blk, c->nb, c->pre_scale);
        else if (c->pre_scale)
            for (size_t i = 0; i < c->nb; i++) fmul(&blk[i], &blk[i], c->pre_scale);
        inner_dit(blk, c->nb, tab);
    }
}

/* One outer butterfly row pair: TILE_COLS columns. w is the pass table
 * (w[x] = w_2H^x, x <= half = H), idx0 the twiddle exponent of column 0,
 * tstride the step per column. */
static inline void outer_row_dif(cz_fr *p0, cz_fr *p1, const cz_fr *w, size_t half, size_t idx0, size_t tstride,
                                 bool inv)
{
    if (cz__ntt_x8_on) {
        if (!inv) cz__ntt_v_dif(p0, p1, TILE_COLS, w + idx0, (ptrdiff_t)tstride, false);
        else cz__ntt_v_dif(p0, p1, TILE_COLS, w + (half - idx0), -(ptrdiff_t)tstride, true);
        return;
    }
    if (!inv) {
        const cz_fr *tw = w + idx0;
        for (size_t c = 0; c < TILE_COLS; c++) {
            cz_fr u = p0[c], v = p1[c], d;
            fadd(&p0[c], &u, &v);
            fsub(&d, &u, &v);
            fmul(&p1[c], &d, &tw[c * tstride]);
        }
    } else {
        /* (u - v)·w_2H^-k = (v - u)·w_2H^(H - k) */
        const cz_fr *tw = w + (half - idx0);
        for (size_t c = 0; c < TILE_COLS; c++) {
            cz_fr u = p0[c], v = p1[c], d;
            fadd(&p0[c], &u, &v);
            fsub(&d, &v, &u);
            fmul(&p1[c], &d, tw - c * tstride);
        }
    }
}

static inline void outer_row_dit(cz_fr *p0, cz_fr *p1, const cz_fr *w, size_t half, size_t idx0, size_t tstride,
                                 bool inv)
{
    if (cz__ntt_x8_on) {
        if (!inv) cz__ntt_v_dit(p0, p1, TILE_COLS, w + idx0, (ptrdiff_t)tstride, false);
        else cz__ntt_v_dit(p0, p1, TILE_COLS, w + (half - idx0), -(ptrdiff_t)tstride, true);
        return;
    }
    if (!inv) {
        const cz_fr *tw = w + idx0;
        for (size_t c = 0; c < TILE_COLS; c++) {
            cz_fr v;
            fmul(&v, &p1[c], &tw[c * tstride]);
            cz_fr u = p0[c];
            fadd(&p0[c], &u, &v);
            fsub(&p1[c], &u, &v);
        }
    } else {
        /* v·w_2H^-k = -(v·w_2H^(H - k)) */
        const cz_fr *tw = w + (half - idx0);
        for (size_t c = 0; c < TILE_COLS; c++) {
            cz_fr v;
            fmul(&v, &p1[c], tw - c * tstride);
            cz_fr u = p0[c];
            fsub(&p0[c], &u, &v);
            fadd(&p1[c], &u, &v);
        }
    }
}

static void outer_units(void *arg, size_t lo, size_t hi, bool dif)
{
    pass_ctx *c = arg;
    const cz_ntt_domain *d = c->d;
    size_t H = (size_t)1 << c->log_H;
    unsigned k = c->k;
    size_t s = H >> (k - 1), R = (size_t)1 << k;
    size_t tiles = s / TILE_COLS;
    /* this pass's twiddles: w_2H^x = tw[x], x <= H (see otab) */
    const cz_fr *tw = d->otab[(d->log_n - 1 - c->log_H) / CZ_NTT_RADIX_LOG];
    for (size_t u = lo; u < hi; u++) {
        size_t blk = u / tiles, tile = u % tiles;
        cz_fr *base = c->x + blk * 2 * H + tile * TILE_COLS;
        for (unsigned j = 0; j < k; j++) {
            unsigned i = dif ? j : k - 1 - j;     /* DIF: big stride first */
            size_t hr = R >> (i + 1);             /* half-size in rows */
            size_t tstride = (size_t)1 << i;      /* w_2h^t = w_2H^(t·2^i), h = H >> i */
            for (size_t g0 = 0; g0 < R; g0 += 2 * hr) {
                for (size_t r = g0; r < g0 + hr; r++) {
                    cz_fr *p0 = base + r * s, *p1 = p0 + hr * s;
                    size_t idx0 = ((r - g0) * s + tile * TILE_COLS) * tstride;
                    if (dif)
                        outer_row_dif(p0, p1, tw, H, idx0, tstride, c->inv);
                    else
                        outer_row_dit(p0, p1, tw, H, idx0, tstride, c->inv);
                }
            }
        }
    }
}

static void outer_dif_units(void *arg, size_t lo, size_t hi) { outer_units(arg, lo, hi, true); }
static void outer_dit_units(void *arg, size_t lo, size_t hi) { outer_units(arg, lo, hi, false); }

static unsigned choose_log_block(const cz_ntt_domain *d, const cz_pool *pool)
{
    unsigned lb = d->log_n < CZ_NTT_LOG_BLOCK ? d->log_n : CZ_NTT_LOG_BLOCK;
    size_t threads = pool ? (size_t)cz_pool_size(pool) + 1 : 1;
    /* at least 4 blocks per thread, as long as blocks stay reasonably big */
    while (threads > 1 && lb > CZ_NTT_LOG_BLOCK_MIN && (d->n >> lb) < 4 * threads) lb--;
    return lb;
}

static void run_outer(cz_pool *pool, pass_ctx *c, unsigned lo_log, unsigned hi_log, bool dif)
{
    /* stages with log h in [lo_log, hi_log) */
    c->k = hi_log - lo_log;
    c->log_H = hi_log - 1;
    size_t units = c->d->n >> (c->k) >> 4; /* n / (2^k rows · TILE_COLS) */
    _Static_assert(TILE_COLS == 16, "units computation assumes 16 columns");
    cz_pool_parallel_range(pool, 0, units, 4, dif ? outer_dif_units : outer_dit_units, c);
}

/* Outer stages log h in [lb, L) in passes of CZ_NTT_RADIX_LOG stages
 * counted from the top (the last pass may be shorter), so that every pass
 * top is a 2^(L-1-3j) with its own compact twiddle table (otab[j]) whatever
 * lb (which depends on the pool) is. DIF runs them top down. */
static void dif_outer(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x, bool inv, unsigned lb)
{
    pass_ctx c = {.d = d, .x = x, .inv = inv};
    for (unsigned top = d->log_n; top > lb;) {
        unsigned kk = top - lb < CZ_NTT_RADIX_LOG ? top - lb : CZ_NTT_RADIX_LOG;
        run_outer(pool, &c, top - kk, top, true);
        top -= kk;
    }
}

/* DIT: the same passes bottom up. */
static void dit_outer(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x, bool inv, unsigned lb)
{
    unsigned L = d->log_n;
    if (L <= lb) return;
    pass_ctx c = {.d = d, .x = x, .inv = inv};
    unsigned np = (L - lb + CZ_NTT_RADIX_LOG - 1) / CZ_NTT_RADIX_LOG;
    for (unsigned p = np; p-- > 0;) {
        unsigned top = L - CZ_NTT_RADIX_LOG * p;
        unsigned kk = top - lb < CZ_NTT_RADIX_LOG ? top - lb : CZ_NTT_RADIX_LOG;
        run_outer(pool, &c, top - kk, top, false);
    }
}

/* natural -> bit-reversed. post_coset, post_sub_from: see pass_ctx. */
static void dif(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x, bool inv, const cz_fr *post_coset,
                bool post_coset_inv, const cz_fr *post_sub_from)
{
    unsigned lb = choose_log_block(d, pool);
    dif_outer(pool, d, x, inv, lb);
    pass_ctx c = {.d = d, .x = x, .inv = inv, .nb = (size_t)1 << lb, .post_coset = post_coset,
                  .post_coset_inv = post_coset_inv, .post_sub_from = post_sub_from};
    cz_pool_parallel_range(pool, 0, d->n >> lb, 1, inner_dif_units, &c);
}

/* bit-reversed -> natural, optionally multiplying by *pre_scale first. */
static void dit(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x, bool inv, const cz_fr *pre_scale)
{
    unsigned lb = choose_log_block(d, pool);
    pass_ctx c = {.d = d, .x = x, .inv = inv, .nb = (size_t)1 << lb, .pre_scale = pre_scale};
    cz_pool_parallel_range(pool, 0, d->n >> lb, 1, inner_dit_units, &c);
    dit_outer(pool, d, x, inv, lb);
}

/* ---- bit reversal ------------------------------------------------------ */

typedef struct {
    cz_fr *x;
    unsigned L;
} br_ctx;

static void bitrev_small(cz_fr *x, unsigned L)
{
    size_t n = (size_t)1 << L;
    for (size_t i = 0; i < n; i++) {
        size_t j = rev_bits(i, L);
        if (i < j) {
            cz_fr t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
}

/* Index = (hi, mid, lo), hi and lo BR_LOG bits each; rev maps it to
 * (rev lo, rev mid, rev hi). Unit = one mid value: swaps the 16×16 tile of
 * mid with that of rev(mid) (only the smaller of the two does the work). */
static void bitrev_units(void *arg, size_t lo, size_t hi)
{
    br_ctx *c = arg;
    const unsigned b = BR_LOG, L = c->L, mb = L - 2 * b;
    const size_t S = (size_t)1 << b, row = (size_t)1 << (L - b);
    cz_fr ta[1 << BR_LOG][1 << BR_LOG], tb[1 << BR_LOG][1 << BR_LOG];
    unsigned char rb[1 << BR_LOG];
    for (size_t i = 0; i < S; i++) rb[i] = (unsigned char)rev_bits(i, b);
    for (size_t m = lo; m < hi; m++) {
        size_t mr = rev_bits(m, mb);
        if (mr < m) continue;
        cz_fr *A = c->x + (m << b), *B = c->x + (mr << b);
        for (size_t h = 0; h < S; h++) memcpy(ta[h], A + h * row, S * sizeof(cz_fr));
        if (mr != m)
            for (size_t h = 0; h < S; h++) memcpy(tb[h], B + h * row, S * sizeof(cz_fr));
        /* (h, m, l) receives the element from (rev l, rev m, rev h) */
        for (size_t h = 0; h < S; h++)
            for (size_t l = 0; l < S; l++) B[h * row + l] = ta[rb[l]][rb[h]];
        if (mr != m)
            for (size_t h = 0; h < S; h++)
                for (size_t l = 0; l < S; l++) A[h * row + l] = tb[rb[l]][rb[h]];
    }
}

static void bitrev(cz_pool *pool, cz_fr *x, unsigned L)
{
    if (L < 2 * BR_LOG + 2) {
        bitrev_small(x, L);
        return;
    }
    br_ctx c = {x, L};
    cz_pool_parallel_range(pool, 0, (size_t)1 << (L - 2 * BR_LOG), 16, bitrev_units, &c);
}

/* ---- natural-order scaling ------------------------------------------------ */

typedef struct {
    cz_fr *x;
    cz_fr scale, step; /* x[i] *= scale·step^i */
} scale_ctx;

static void scale_range(void *arg, size_t lo, size_t hi)
{
    scale_ctx *c = arg;
    cz_fr f;
    fr_pow_u64(&f, &c->step, lo);
    fmul(&f, &f, &c->scale);
    for (size_t i = lo; i < hi; i++) {
        fmul(&c->x[i], &c->x[i], &f);
        fmul(&f, &f, &c->step);
    }
}

static void scale_geometric(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x, const cz_fr *scale, const cz_fr *step)
{
    scale_ctx c = {x, *scale, *step};
    cz_pool_parallel_range(pool, 0, d->n, 4096, scale_range, &c);
}

/* ---- public transforms ----------------------------------------------------
 * Each starts with cz__ntt_lanes_tick (ntt_x8.h): a measured "scalar" is
 * measured again once a minute. (cz_ntt_coset_forward ticks through
 * cz_ntt_forward.) */

void cz_ntt_forward(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x)
{
    cz__ntt_lanes_tick();
    dif(pool, d, x, false, NULL, false, NULL);
    bitrev(pool, x, d->log_n);
}

void cz_ntt_inverse(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x)
{
    cz__ntt_lanes_tick();
    bitrev(pool, x, d->log_n);
    dit(pool, d, x, true, &d->n_inv);
}

void cz_ntt_coset_forward(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x)
{
    scale_geometric(pool, d, x, &CZ_FR_ONE, &d->g);
    cz_ntt_forward(pool, d, x);
}

void cz_ntt_coset_inverse(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x)
{
    cz__ntt_lanes_tick();
    bitrev(pool, x, d->log_n);
    dit(pool, d, x, true, NULL);
    scale_geometric(pool, d, x, &d->n_inv, &d->g_inv);
}

/* ---- quotient --------------------------------------------------------------- */

typedef struct {
    cz_fr *a;
    const cz_fr *b;
    const cz_fr *c; /* ab_sub_range only */
} ab_ctx;

void cz_fr_pointwise_mul(cz_fr *a, const cz_fr *b, size_t n)
{
    size_t m = 0;
    if (cz__ntt_x8_on) {
        m = n & ~(size_t)7;
        cz__ntt_v_mul(a, b, m);
    }
    for (size_t i = m; i < n; i++) fmul(&a[i], &a[i], &b[i]);
}

static void ab_range(void *arg, size_t lo, size_t hi)
{
    ab_ctx *q = arg;
    cz_fr_pointwise_mul(q->a + lo, q->b + lo, hi - lo);
}

/* Quotient, middle step for one cache block of each of a, b, c: the inner
 * stages of the inverse DIF of all three; a and b times s^rev(p)/n (the
 * factor computed once for both) and the inner stages of their forward
 * DIT; c, which stays a bit-reversed coefficient vector, times 1/(2n).
 * All while the block is in cache. */
typedef struct {
    const cz_ntt_domain *d;
    cz_fr *v[3];
    size_t nb;
    bool c_coset; /* cz_quotient_odd_coset: c goes to the coset as a and b do */
} qblk_ctx;

static void quotient_blocks(void *arg, size_t lo, size_t hi)
{
    qblk_ctx *q = arg;
    const cz_ntt_domain *d = q->d;
    size_t nb = q->nb, mask = ((size_t)1 << d->cs) - 1;
    cz_fr *a = q->v[0], *b = q->v[1], *c = q->v[2];
    const unsigned ns = q->c_coset ? 3 : 2; /* the vectors scaled onto the coset */
    for (size_t u = lo; u < hi; u++) {
        size_t base = u * nb;
        for (int i = 0; i < 3; i++) inner_dif(q->v[i] + base, nb, d->tab_inv);
        cz_fr row;
        for (size_t p = base; p < base + nb; p++) {
            if (p == base || (p & mask) == 0) fmul(&row, &d->th_s[p >> d->cs], &d->n_inv);
            size_t run = ((p | mask) + 1 < base + nb ? (p | mask) + 1 : base + nb) - p;
            if (cz__ntt_x8_on && (run & 7) == 0) {
                cz__ntt_v_scale_tab(q->v, ns, p, run, &d->tl_s[p & mask], &row);
                p += run - 1;
                continue;
            }
            cz_fr t;
            fmul(&t, &d->tl_s[p & mask], &row);
            fmul(&a[p], &a[p], &t);
            fmul(&b[p], &b[p], &t);
            if (q->c_coset) fmul(&c[p], &c[p], &t);
        }
        if (!q->c_coset) {
            if (cz__ntt_x8_on && (nb & 7) == 0)
                cz__ntt_v_scale(c + base, nb, &d->inv_2n);
            else
                for (size_t p = base; p < base + nb; p++) fmul(&c[p], &c[p], &d->inv_2n);
        }
        for (unsigned i = 0; i < ns; i++) inner_dit(q->v[i] + base, nb, d->tab_fwd);
    }
}

/* Six transforms, not the usual seven, because the coset is s·<w> with
 * s = w_2n: there s^n = -1, so X^n = -1 on it, while X^n = 1 on <w>.
 * Write A·B = P_lo + X^n·P_hi with deg P_lo, P_hi < n. A·B − C = H·Z
 * with deg H <= n − 2 gives P_hi = H and P_lo = C − H. On the coset,
 * A·B = P_lo − P_hi = C − 2H, a polynomial of degree < n, so the coset
 * interpolation D of the products a·b there is C − 2H exactly, and
 * H = (C − D)/2: C's coefficients (one inverse transform of c) replace
 * the forward coset transform of c and the subtraction on the coset. */
/* Evaluations on <w> -> coefficients (bit-reversed, times n) for a, b, c;
 * a, b (and c if c_coset) times s^i/n -> coset evaluations (natural
 * order); otherwise c times 1/(2n), left as bit-reversed coefficients. */
static void to_coset(cz_pool *pool, const cz_ntt_domain *d, cz_fr *a, cz_fr *b, cz_fr *c, bool c_coset)
{
    unsigned lb = choose_log_block(d, pool);
    cz_fr *v[3] = {a, b, c};
    for (int i = 0; i < 3; i++) dif_outer(pool, d, v[i], true, lb);
    qblk_ctx qb = {d, {a, b, c}, (size_t)1 << lb, c_coset};
    cz_pool_parallel_range(pool, 0, d->n >> lb, 1, quotient_blocks, &qb);
    for (int i = 0; i < (c_coset ? 3 : 2); i++) dit_outer(pool, d, v[i], false, lb);
}

void cz_quotient_h(cz_pool *pool, const cz_ntt_domain *d, cz_fr *a, cz_fr *b, cz_fr *c)
{
    cz__ntt_lanes_tick();
    to_coset(pool, d, a, b, c, false);
    ab_ctx q = {a, b, NULL};
    cz_pool_parallel_range(pool, 0, d->n, 4096, ab_range, &q);
    /* coset evaluations of A·B -> n·s^i·D_i (bit-reversed); times
     * s^-i/(2n) gives D_i/2, and C_i/2 − D_i/2 = H_i */
    dif(pool, d, a, true, &d->inv_2n, true, c);
    bitrev(pool, a, d->log_n);
}

/* a[i] = a[i]·b[i] − c[i] */
static void ab_sub_range(void *arg, size_t lo, size_t hi)
{
    ab_ctx *q = arg;
    for (size_t i = lo; i < hi; i++) {
        cz_fr t;
        fmul(&t, &q->a[i], &q->b[i]);
        fsub(&q->a[i], &t, &q->c[i]);
    }
}

/* The first half of cz_quotient_h for all three vectors (each an inverse
 * DIF to bit-reversed coefficients, a scaling by s^rev(p)/n and a forward
 * DIT to natural coset evaluations, the middle done block by block in
 * cache), then the products: six transforms and no permutation. */
void cz_quotient_odd_coset(cz_pool *pool, const cz_ntt_domain *d, cz_fr *a, cz_fr *b, cz_fr *c)
{
    cz__ntt_lanes_tick();
    to_coset(pool, d, a, b, c, true);
    ab_ctx q = {a, b, c};
    cz_pool_parallel_range(pool, 0, d->n, 4096, ab_sub_range, &q);
}
