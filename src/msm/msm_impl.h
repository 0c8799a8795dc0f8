/*
 * MSM body, written once for G1 and G2 (included twice by msm.c).
 *
 * The including file defines:
 *   AFF, XYZZ, JAC         point types (cz_g1_affine, ...)
 *   FT                     field element type (cz_fp / cz_fp2)
 *   E(name)                group function: E(xyzz_add_var) -> cz_g1_xyzz_add_var
 *   F(name)                field function: F(mul) -> cz_fp_mul
 *   F_INV                  field inversion (variable time allowed)
 *   S(name)                static helper name, unique per group
 *   MSM_PUB(suffix)        public name: MSM_PUB(_density) -> cz_msm_g1_density
 *   AFFINE_MIN             smallest window given affine buckets in AUTO mode
 *   L2_KB                  widest window whose affine buckets the table planner
 *                          prices as L2-resident (cz__msm_plan_vsegs)
 *   SEG_T                  the concat segment type (cz_msm_g1_seg)
 *   TAB_T, TAB_S           the table set's typedef name and struct tag
 *                          (cz_msm_g1_tables: the struct is defined here)
 *   ENTRY_T (optional)     the batch entry type (G1: cz_msm_g1_entry, shared
 *                          with the eight-lane flush)
 *   FLUSH_X8 (optional)    SIMD-lane flush (bk, entries, n, scratch) and
 *   X8_SCRATCH(cap)        its scratch bytes; X8_USABLE() true when it may run;
 *   X8_PLAN() (optional)   true when the planner should price lane additions
 *                          (default true); X8_MIN_BATCH() the smallest batch
 *                          it takes (default CZ_MSM_X8_MIN_BATCH);
 *                          X8_BATCH(cap) the entries at which a task's batch
 *                          of capacity cap is flushed (default cap)
 *
 * Scratch layout (one block, 64-byte aligned pieces):
 *   [ones partial sums: nchunks XYZZ][slot 0]...[slot T-1]
 *   [window results: nwin × nparts XYZZ]
 * A slot is one thread's bucket set: XYZZ buckets, or affine buckets +
 * XYZZ overflow buckets + batch (entries, prefix products) + retry queue +
 * two flag bytes per bucket. Parallel index i uses slot i only and claims
 * tasks (split chunks, then (window, range) pairs) from an atomic counter,
 * so the partition of the work never depends on the thread count.
 *
 * Points are numbered 0..n-1 across the segments of a call (one segment
 * for cz_msm_gX and the density variant, up to CZ_MSM_MAX_SEGS for
 * _concat); a chunk or a point range may span several segments, so every
 * pass walks its range segment piece by segment piece (S(piece)).
 *
 * Table sets (cz_msm_gX_tables_*): a set of t tables of B bits for n bases
 * holds T_j[i] = 2^(jB)·P_i. With D_j(k) = the Booth digits of k read in
 * B-bit fields, sum_j D_j(k)·2^(jB) = k, so sum_i k_i·P_i is the MSM over
 * the t·n points T_j[i] in which T_j[i] takes the part of k_i's recoding
 * that lies in bits [jB, jB + B). Each table becomes one more segment of
 * the point space ("virtual" segments, after the call's own segments,
 * which are table 0 and which the split pass walks alone), sharing its
 * scalar array with table 0 and reading its digits from bit jB: window
 * win of a segment reads the field at jB + win·c of min(c, B - win·c)
 * bits (cz__msm_booth), so all segments' windows line up at the same
 * offsets win·c and the windows combine as before, with c doublings
 * between them. A plain segment is the case bit 0, width
 * CZ_MSM_PLAIN_WIDTH. The split pass is unchanged: 0 and 1 scalars are
 * classified by the whole scalar on table 0 and skipped in every table,
 * so a table point never needs a class of its own. Tables above the
 * scalars' top bit are left out.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#ifdef ENTRY_T
typedef ENTRY_T S(entry);
#else
typedef struct {
    const AFF *p;
    uint32_t b;     /* bucket */
    uint8_t neg;    /* add -P */
    uint8_t dbl;    /* P == bucket: doubling */
} S(entry);
#endif
#ifndef FLUSH_X8
#define X8_SCRATCH(cap) ((size_t)0)
#endif
/* The planner prices lane additions (its IFMA constants) only when the
 * lanes are IFMA's; the AVX2 lanes are planned as the scalar flush. */
#ifndef X8_PLAN
#define X8_PLAN() true
#endif
#ifndef X8_MIN_BATCH
#define X8_MIN_BATCH() CZ_MSM_X8_MIN_BATCH
#endif
#ifndef X8_BATCH
#define X8_BATCH(cap) (cap)
#endif

struct TAB_S {
    size_t n;
    unsigned t, bits;
    const AFF *bases; /* table 0: the caller's */
    const AFF *mem;   /* tables 1..t-1, n points each */
    AFF *own;         /* mem when the set allocated it (built); NULL when borrowed (wrapped) */
};

typedef struct {
    size_t n;                    /* bases, all segments together (table 0) */
    unsigned nseg;               /* segments of the point space (the call's, then tables) */
    unsigned norig;              /* the call's segments: points [0, n) (1 with a density bitmap) */
    const AFF *sb[CZ__MSM_MAX_VSEGS];
    const cz_scalar *ss[CZ__MSM_MAX_VSEGS];
    size_t soff[CZ__MSM_MAX_VSEGS + 1]; /* segment k holds points [soff[k], soff[k+1]) */
    unsigned sbit[CZ__MSM_MAX_VSEGS];   /* first bit its digits read (table j: j·B) */
    unsigned swidth[CZ__MSM_MAX_VSEGS]; /* bits its digits span (B; CZ_MSM_PLAIN_WIDTH) */
    unsigned kbw[258];             /* effective width of each window */
    size_t nscalars;
    const uint64_t *bm;          /* density bitmap or NULL */
    bool split;
    bool x8;                     /* eight-lane flush */
    /* split pass */
    size_t nchunks;
    size_t chunk_lo[CZ_MSM_MAX_CHUNKS + 1];
    size_t chunk_pos[CZ_MSM_MAX_CHUNKS + 1];
    XYZZ *ones;                  /* nchunks */
    size_t cnt[CZ_MSM_MAX_CHUNKS][3];
    uint64_t orbits[CZ_MSM_MAX_CHUNKS][4];
    /* Pippenger */
    cz_msm_plan pl;
    unsigned maxbits;
    bool affine_forced;
    size_t part_lo[CZ_MSM_MAX_PARTS + 1];
    size_t part_pos[CZ_MSM_MAX_PARTS + 1];
    XYZZ *res;                   /* nwin × nparts */
    unsigned char *slots;
    size_t slot_bytes;
    atomic_size_t next;
    size_t ntasks;
} S(ctx);

static size_t S(align64)(size_t x) { return (x + 63) & ~(size_t)63; }

/* The part of a point range [lo, hi) that lies in one segment: points
 * [lo, e), bases b[j - off] and their scalars from the cursor it. */
typedef struct {
    const AFF *b;
    size_t off, e;
    cz_msm_cursor it;
    unsigned pos, len; /* the digit field of the task's window (len 0: none) */
} S(piece);

/* The segment holding point lo (or the last one when lo is past them all;
 * the last of several empty ones at lo). */
static inline unsigned S(seg_of)(const S(ctx) *x, size_t lo)
{
    unsigned k = 0;
    while (k + 1 < x->nseg && x->soff[k + 1] <= lo) k++;
    return k;
}

/* The digit field window win reads in segment k (see the file comment). */
static inline void S(piece_window)(const S(ctx) *x, unsigned k, unsigned win, S(piece) *pc)
{
    unsigned c = x->pl.c, wc = win * c, wd = x->swidth[k];
    pc->pos = x->sbit[k] + wc;
    pc->len = wc < wd && pc->pos <= x->maxbits ? (wd - wc < c ? wd - wc : c) : 0;
}

/* The piece of [lo, hi) starting at lo in segment k; pos is the scalar
 * position of lo with a density bitmap (then there is one segment). */
static inline void S(piece_at)(const S(ctx) *x, unsigned k, size_t lo, size_t hi, size_t pos, S(piece) *pc)
{
    pc->b = x->sb[k];
    pc->off = x->soff[k];
    pc->e = hi < x->soff[k + 1] ? hi : x->soff[k + 1];
    pc->it.sc = x->ss[k];
    pc->it.bm = x->bm;
    pc->it.pos = x->bm ? pos : lo - pc->off;
}

static const FT S(zero);

/* Field equality and the infinity test inlined for the per-point path
 * (the library calls were ~5% of a G1 MSM): elements are canonical, so
 * equal values have equal limbs; infinity is x = y = 0. */
static inline bool S(feq)(const FT *a, const FT *b) { return memcmp(a, b, sizeof(FT)) == 0; }

static inline bool S(is_inf)(const AFF *p)
{
    const uint64_t *w = (const uint64_t *)(const void *)p;
    uint64_t acc = 0;
    for (size_t i = 0; i < sizeof(AFF) / 8; i++) acc |= w[i];
    return acc == 0;
}

static size_t S(affine_slot_bytes)(size_t k, size_t cap)
{
    return S(align64)(k * sizeof(AFF)) + S(align64)(k * sizeof(XYZZ)) +
           S(align64)(cap * sizeof(FT)) + S(align64)(2 * cap * sizeof(S(entry))) + S(align64)(2 * k) +
           S(align64)(X8_SCRATCH(cap));
}

static size_t S(slot_bytes)(unsigned c, bool affine)
{
    size_t k = (size_t)1 << (c - 1);
    if (!affine) return S(align64)(k * sizeof(XYZZ));
    return S(affine_slot_bytes)(k, cz__msm_batch_size(c));
}

/* Slot size covering every task of a call whose window is at most c: XYZZ
 * buckets are used for all windows only when forced; otherwise only for
 * effective windows below AFFINE_MIN. A slot also holds the split pass's
 * affine accumulators. */
static size_t S(slot_bytes_max)(unsigned c, const cz_msm_opts *opts)
{
    bool xyzz_only = opts && opts->buckets == CZ_MSM_BUCKETS_XYZZ;
    unsigned cx = xyzz_only || c < AFFINE_MIN ? c : AFFINE_MIN - 1;
    size_t a = xyzz_only ? 0 : S(slot_bytes)(c, true), b = S(slot_bytes)(cx, false);
    size_t o = S(affine_slot_bytes)(CZ_MSM_ONES_BATCH, CZ_MSM_ONES_BATCH);
    size_t m = a > b ? a : b;
    return m > o ? m : o;
}

static size_t S(scratch_bytes)(const cz_msm_plan *pl, size_t nchunks, const cz_msm_opts *opts)
{
    return S(align64)(nchunks * sizeof(XYZZ)) + (size_t)pl->threads * S(slot_bytes_max)(pl->c, opts) +
           S(align64)((size_t)pl->nwin * pl->nparts * sizeof(XYZZ)) + 64;
}

/* ---- bucket accumulation, XYZZ buckets ---------------------------------- */

static void S(reduce_xyzz)(XYZZ *out, const XYZZ *bk, size_t k)
{
    /* sum_{i} (i+1)·bk[i] by running sums from the top bucket down */
    XYZZ run, tot;
    E(xyzz_set_infinity)(&run);
    E(xyzz_set_infinity)(&tot);
    size_t top = k;
    while (top > 0 && E(xyzz_is_infinity)(&bk[top - 1])) top--;
    for (size_t i = top; i-- > 0;) {
        if (!E(xyzz_is_infinity)(&bk[i])) E(xyzz_add_var)(&run, &run, &bk[i]);
        E(xyzz_add_var)(&tot, &tot, &run);
    }
    *out = tot;
}

static void S(task_xyzz)(S(ctx) *x, unsigned char *slot, unsigned win, unsigned part, XYZZ *out,
                         unsigned kb)
{
    const size_t k = (size_t)1 << (kb - 1);
    XYZZ *bk = (XYZZ *)slot;
    for (size_t i = 0; i < k; i++) E(xyzz_set_infinity)(&bk[i]);
    size_t lo = x->part_lo[part], hi = x->part_lo[part + 1];
    size_t pos0 = x->part_pos[part]; /* a later piece starts its segment: position 0 */
    for (unsigned sg = S(seg_of)(x, lo); lo < hi; sg++, pos0 = 0) {
        S(piece) pc;
        S(piece_at)(x, sg, lo, hi, pos0, &pc);
        S(piece_window)(x, sg, win, &pc);
        for (size_t j = lo; j < pc.e && pc.len; j++) {
            const cz_scalar *s = cz__msm_cursor_next(&pc.it);
            if (x->split && cz__msm_class(s) != 2) continue;
            int32_t d = cz__msm_booth(s->l, pc.pos, pc.len);
            if (d == 0) continue;
            const AFF *p = &pc.b[j - pc.off];
            if (S(is_inf)(p)) continue;
            if (d > 0)
                E(xyzz_add_affine_var)(&bk[d - 1], &bk[d - 1], p);
            else
                E(xyzz_sub_affine_var)(&bk[-d - 1], &bk[-d - 1], p);
        }
        lo = pc.e;
    }
    S(reduce_xyzz)(out, bk, k);
}

/* ---- bucket accumulation, affine buckets with batched inversion --------- */

typedef struct {
    AFF *bk;
    XYZZ *ovf;      /* overflow buckets: additions that found their bucket busy */
    uint8_t *occ;   /* bit 0: bk[b] holds a point; bit 1: ovf[b] is in use */
    uint8_t *busy;  /* bk[b] has an addition pending in the batch */
    S(entry) *batch, *queue;
    FT *pre;
    void *x8;       /* eight-lane flush scratch, NULL: scalar flush */
    unsigned nb, nq, cap;
    unsigned fill; /* entries at which a batch is flushed: cap, or fewer (X8_BATCH) */
    bool ovf_used;
} S(abatch);

/* Montgomery's batch inversion of the batch's denominators: bi_push(i)
 * runs forward and keeps prefix products in pre[], BI_INV inverts the
 * total once, bi_pop(i) runs backward and yields 1/den_i.
 * G2 (FLUSH_NORM): the products are taken over the Fp norms
 * N_i = den0^2 + den1^2 instead of the Fp2 denominators, and
 * 1/den_i = conj(den_i)/N_i: a norm (two products, one reduction) and
 * three Fp multiplications replace three Fp2 ones (each two sums of
 * products with their reductions), about 6 Fp products' worth of work
 * per addition instead of 9 (measured: docs/design.md §2.6). pre[i].c0
 * holds the prefix product, pre[i].c1 the norm. */
#ifdef FLUSH_NORM
typedef cz_fp S(bacc);
static inline void S(bi_push)(S(abatch) *st, unsigned i, const FT *den, S(bacc) *acc)
{
    cz_fp nd;
    cz_fp2_norm(&nd, den);
    if (i == 0) {
        *acc = nd;
        return;
    }
    st->pre[i].c0 = *acc;
    st->pre[i].c1 = nd;
    cz_fp_mul(acc, acc, &nd);
}
static inline void S(bi_pop)(S(abatch) *st, unsigned i, const FT *den, S(bacc) *inv, FT *ii)
{
    cz_fp in; /* 1/N_i */
    if (i > 0) {
        cz_fp_mul(&in, inv, &st->pre[i].c0);
        cz_fp_mul(inv, inv, &st->pre[i].c1);
    } else {
        in = *inv;
    }
    cz_fp_mul(&ii->c0, &den->c0, &in);
    cz_fp_mul(&ii->c1, &den->c1, &in);
    cz_fp_neg(&ii->c1, &ii->c1);
}
#define BI_INV cz_fp_inv_var
#else
typedef FT S(bacc);
static inline void S(bi_push)(S(abatch) *st, unsigned i, const FT *den, S(bacc) *acc)
{
    if (i == 0) {
        *acc = *den;
        return;
    }
    st->pre[i] = *acc;
    F(mul)(acc, acc, den);
}
static inline void S(bi_pop)(S(abatch) *st, unsigned i, const FT *den, S(bacc) *inv, FT *ii)
{
    if (i > 0) {
        F(mul)(ii, inv, &st->pre[i]);
        F(mul)(inv, inv, den);
    } else {
        *ii = *inv;
    }
}
#define BI_INV F_INV
#endif

/* Applies every pending bucket += point with one inversion:
 * lambda = num/den, den = P.x - B.x (or 2·B.y when doubling),
 * x3 = lambda^2 - B.x - P.x, y3 = lambda·(B.x - x3) - B.y. */
static void S(flush)(S(abatch) *st)
{
    unsigned n = st->nb;
    if (!n) return;
#ifdef FLUSH_X8
    if (st->x8 && n >= X8_MIN_BATCH()) {
        FLUSH_X8(st->bk, st->batch, n, st->x8);
        for (unsigned i = 0; i < n; i++) st->busy[st->batch[i].b] = 0;
        st->nb = 0;
        return;
    }
#endif
    FT den, t, lam, x3, y3;
    S(bacc) acc, inv;
    /* forward: the prefix products of the denominators (G1) or of their
     * norms (G2), S(bi_push) */
    for (unsigned i = 0; i < n; i++) {
        const S(entry) *e = &st->batch[i];
        const AFF *b = &st->bk[e->b];
        if (e->dbl) F(dbl)(&den, &b->y);
        else F(sub)(&den, &e->p->x, &b->x);
        S(bi_push)(st, i, &den, &acc);
    }
    BI_INV(&inv, &acc);
    for (unsigned i = n; i-- > 0;) {
        const S(entry) *e = &st->batch[i];
        AFF *b = &st->bk[e->b];
        FT num, ii;
        if (e->dbl) F(dbl)(&den, &b->y);
        else F(sub)(&den, &e->p->x, &b->x);
        S(bi_pop)(st, i, &den, &inv, &ii);
        if (e->dbl) {
            F(sqr)(&t, &b->x);
            F(dbl)(&num, &t);
            F(add)(&num, &num, &t);
        } else if (e->neg) {
            F(add)(&num, &e->p->y, &b->y);
            F(neg)(&num, &num);
        } else {
            F(sub)(&num, &e->p->y, &b->y);
        }
        F(mul)(&lam, &num, &ii);
        F(sqr)(&x3, &lam);
        F(sub)(&x3, &x3, &b->x);
        F(sub)(&x3, &x3, &e->p->x);
        F(sub)(&t, &b->x, &x3);
        F(mul)(&y3, &lam, &t);
        F(sub)(&b->y, &y3, &b->y);
        b->x = x3;
        st->busy[e->b] = 0;
    }
    st->nb = 0;
}

/* Bucket b += (neg ? -P : P) when b is not busy (returns false when it is).
 * Empty buckets take the point directly; P = -B empties the bucket; P = B
 * becomes a doubling in the batch. */
static bool S(try_add)(S(abatch) *st, uint32_t b, const AFF *p, uint8_t neg)
{
    if (st->busy[b]) return false;
    AFF *bk = &st->bk[b];
    if (!(st->occ[b] & 1)) {
        bk->x = p->x;
        if (neg) F(neg)(&bk->y, &p->y);
        else bk->y = p->y;
        st->occ[b] |= 1;
        return true;
    }
    uint8_t dbl = 0;
    if (S(feq)(&p->x, &bk->x)) {
        FT y;
        if (neg) F(neg)(&y, &p->y);
        else y = p->y;
        /* same x: P = B (double) or P = -B (cancel); y = 0 would be a
         * 2-torsion point (absent from the subgroup): its double is 0 */
        if (!S(feq)(&y, &bk->y) || S(feq)(&y, &S(zero))) {
            st->occ[b] &= (uint8_t)~1u;
            return true;
        }
        dbl = 1;
    }
    S(entry) *e = &st->batch[st->nb++];
    e->p = p;
    e->b = b;
    e->neg = neg;
    e->dbl = dbl;
    st->busy[b] = 1;
    return true;
}

/* Retries the queued additions (after a flush freed every bucket); those
 * that conflict again stay queued. Flushes whenever the batch fills. */
static void S(drain)(S(abatch) *st)
{
    unsigned w = 0;
    for (unsigned r = 0; r < st->nq; r++) {
        S(entry) e = st->queue[r];
        if (!S(try_add)(st, e.b, e.p, e.neg)) {
            st->queue[w++] = e;
        } else if (st->nb == st->fill) {
            S(flush)(st);
        }
    }
    st->nq = w;
}

/* Bucket b += ±P. A point whose bucket already has an addition in the
 * batch is queued and retried after the next flush; when the queue is
 * full (many points for the same few buckets, e.g. many equal small
 * scalars) it goes to the bucket's XYZZ overflow instead (one mixed
 * addition, ~1.4x an affine one), so batches stay full and the inversion
 * stays amortised whatever the digits. */
static void S(add_point)(S(abatch) *st, uint32_t b, const AFF *p, uint8_t neg)
{
    if (S(try_add)(st, b, p, neg)) {
        if (st->nb == st->fill) {
            S(flush)(st);
            S(drain)(st);
        }
        return;
    }
    if (st->nq < st->cap) {
        S(entry) *q = &st->queue[st->nq++];
        q->p = p;
        q->b = b;
        q->neg = neg;
        q->dbl = 0;
        return;
    }
    XYZZ *o = &st->ovf[b];
    st->ovf_used = true;
    if (!(st->occ[b] & 2)) {
        E(xyzz_set_infinity)(o);
        st->occ[b] |= 2;
    }
    if (neg) E(xyzz_sub_affine_var)(o, o, p);
    else E(xyzz_add_affine_var)(o, o, p);
}

/* Completes every pending and queued addition: retry rounds (a handful
 * usually empties the queue, which keeps the overflow buckets unused and
 * the batched reduction available); after 32 rounds the points left (many
 * for one bucket) go to the overflow buckets. */
static void S(finish)(S(abatch) *st)
{
    for (int round = 0; round < 32; round++) {
        unsigned before = st->nq;
        S(flush)(st);
        S(drain)(st);
        if (!st->nq || st->nq == before) break;
    }
    for (unsigned i = 0; i < st->nq; i++) {
        const S(entry) *e = &st->queue[i];
        XYZZ *o = &st->ovf[e->b];
        st->ovf_used = true;
        if (!(st->occ[e->b] & 2)) {
            E(xyzz_set_infinity)(o);
            st->occ[e->b] |= 2;
        }
        if (e->neg) E(xyzz_sub_affine_var)(o, o, e->p);
        else E(xyzz_add_affine_var)(o, o, e->p);
    }
    st->nq = 0;
    S(flush)(st);
}

/* Carves an affine bucket set of k buckets and batch size cap out of a slot. */
static void S(abatch_init)(S(abatch) *st, unsigned char *q, size_t k, unsigned cap, bool x8)
{
    st->bk = (AFF *)q;
    q += S(align64)(k * sizeof(AFF));
    st->ovf = (XYZZ *)q;
    q += S(align64)(k * sizeof(XYZZ));
    st->pre = (FT *)q;
    q += S(align64)(cap * sizeof(FT));
    st->batch = (S(entry) *)q;
    st->queue = st->batch + cap;
    q += S(align64)(2 * (size_t)cap * sizeof(S(entry)));
    st->occ = q;
    st->busy = q + k;
    q += S(align64)(2 * k);
    st->x8 = x8 && X8_SCRATCH(cap) ? q : NULL;
    memset(st->occ, 0, 2 * k);
    st->nb = st->nq = 0;
    st->cap = st->fill = cap;
    st->ovf_used = false;
}

/*
 * Bucket reduction sum_b (b+1)·bk[b] with batched affine additions: the k
 * buckets are cut into nl lanes of L consecutive buckets; every lane keeps
 * its own running sum R_l and total T_l (affine), advanced one bucket per
 * step for all lanes at once, so each step is two batches of nl
 * independent additions (R_l += bucket, then T_l += R_l) sharing one
 * inversion each. Then T_l = sum_r (r+1)·bk[lL+r] and R_l = sum_r bk[lL+r],
 * and the window sum is sum_l T_l + L·sum_l l·R_l (the last by a short
 * XYZZ running sum over the lanes). About 2 × 0.66 additions per bucket
 * instead of one mixed + one full XYZZ addition (≈ 2.4).
 * The lane accumulators live in the (unused) overflow area; st's batch
 * arrays are reused (the batch is empty). Needs no overflow bucket in use.
 */
static void S(reduce_lanes)(S(abatch) *st, size_t k, XYZZ *out)
{
    size_t nl = k / 16 < st->cap ? k / 16 : st->cap;
    size_t L = k / nl;
    S(abatch) ls;
    unsigned char *q = (unsigned char *)st->ovf;
    ls.bk = (AFF *)q;
    q += S(align64)(2 * nl * sizeof(AFF));
    ls.occ = q;
    ls.busy = q + 2 * nl;
    memset(ls.occ, 0, 4 * nl);
    ls.ovf = NULL;
    ls.pre = st->pre;
    ls.x8 = st->x8;
    ls.batch = st->batch;
    ls.queue = NULL;
    ls.nb = ls.nq = 0;
    ls.cap = ls.fill = st->cap;
    ls.ovf_used = false;
    for (size_t i = L; i-- > 0;) {
        for (size_t l = 0; l < nl; l++)
            if (st->occ[l * L + i] & 1) (void)S(try_add)(&ls, (uint32_t)l, &st->bk[l * L + i], 0);
        S(flush)(&ls);
        for (size_t l = 0; l < nl; l++)
            if (ls.occ[l] & 1) (void)S(try_add)(&ls, (uint32_t)(nl + l), &ls.bk[l], 0);
        S(flush)(&ls);
    }
    XYZZ tsum, run, tot;
    E(xyzz_set_infinity)(&tsum);
    E(xyzz_set_infinity)(&run);
    E(xyzz_set_infinity)(&tot);
    for (size_t l = nl; l-- > 0;) {
        if (ls.occ[nl + l] & 1) E(xyzz_add_affine_var)(&tsum, &tsum, &ls.bk[nl + l]);
        if (l == 0) break;
        if (ls.occ[l] & 1) E(xyzz_add_affine_var)(&run, &run, &ls.bk[l]);
        E(xyzz_add_var)(&tot, &tot, &run);
    }
    for (size_t m = L; m > 1 && !E(xyzz_is_infinity)(&tot); m >>= 1) E(xyzz_dbl_var)(&tot, &tot);
    E(xyzz_add_var)(out, &tsum, &tot);
}

/* ---- split pass: sum the scalars equal to 1, classify the rest ---------- */

/* The 1-scalars are summed with the same batched affine additions, spread
 * round-robin over CZ_MSM_ONES_BATCH accumulators (consecutive points land
 * in distinct accumulators, so batches fill without conflicts); the
 * accumulators are summed at the end of the chunk. */
static void S(split_chunk)(S(ctx) *x, unsigned char *slot, size_t ch)
{
    const unsigned K = CZ_MSM_ONES_BATCH;
    S(abatch) st;
    S(abatch_init)(&st, slot, K, K, x->x8);
    XYZZ acc;
    uint64_t orb[4] = {0, 0, 0, 0};
    size_t cnt[3] = {0, 0, 0};
    unsigned rr = 0;
    E(xyzz_set_infinity)(&acc);
    size_t lo = x->chunk_lo[ch], hi = x->chunk_lo[ch + 1];
    for (unsigned sg = S(seg_of)(x, lo); lo < hi; sg++) {
        S(piece) pc;
        S(piece_at)(x, sg, lo, hi, x->chunk_pos[ch], &pc);
        for (size_t j = lo; j < pc.e; j++) {
            const cz_scalar *s = cz__msm_cursor_next(&pc.it);
            int cl = x->split ? cz__msm_class(s) : 2;
            if (cl == 2 && !(s->l[0] | s->l[1] | s->l[2] | s->l[3])) cl = 0;
            cnt[cl]++;
            if (cl == 1) {
                const AFF *p = &pc.b[j - pc.off];
                if (S(is_inf)(p)) continue;
                S(add_point)(&st, rr, p, 0);
                if (++rr == K) rr = 0;
            } else if (cl == 2) {
                for (int l = 0; l < 4; l++) orb[l] |= s->l[l];
            }
        }
        lo = pc.e;
    }
    if (st.nb + st.nq < 16) {
        /* too few left to pay for an inversion: add them directly */
        for (unsigned i = 0; i < st.nb; i++) E(xyzz_add_affine_var)(&acc, &acc, st.batch[i].p);
        for (unsigned i = 0; i < st.nq; i++) E(xyzz_add_affine_var)(&acc, &acc, st.queue[i].p);
    } else {
        S(finish)(&st);
    }
    for (unsigned b = 0; b < K; b++) {
        if (st.occ[b] & 1) E(xyzz_add_affine_var)(&acc, &acc, &st.bk[b]);
        if (st.occ[b] & 2) E(xyzz_add_var)(&acc, &acc, &st.ovf[b]);
    }
    x->ones[ch] = acc;
    memcpy(x->cnt[ch], cnt, sizeof cnt);
    memcpy(x->orbits[ch], orb, sizeof orb);
}

static void S(split_worker)(void *arg, size_t slot_i)
{
    S(ctx) *x = arg;
    unsigned char *slot = x->slots + slot_i * x->slot_bytes;
    for (;;) {
        size_t ch = atomic_fetch_add_explicit(&x->next, 1, memory_order_relaxed);
        if (ch >= x->nchunks) break;
        S(split_chunk)(x, slot, ch);
    }
}

static void S(task_affine)(S(ctx) *x, unsigned char *slot, unsigned win, unsigned part, XYZZ *out,
                           unsigned kb)
{
    const size_t k = (size_t)1 << (kb - 1);
    const unsigned cap = cz__msm_batch_size(kb);
    S(abatch) st;
    S(abatch_init)(&st, slot, k, cap, x->x8);
    st.fill = X8_BATCH(cap);

    /* Buckets are touched in random order and outgrow L2 from c ~ 14: the
     * bucket of each point is prefetched PF points ahead (ring of pending
     * (digit, point) pairs). */
    enum { PF = 8 };
    int32_t rd[PF];
    const AFF *rp[PF];
    unsigned head = 0, fill = 0;
    /* the ring carries over from one segment piece to the next */
    size_t lo = x->part_lo[part], hi = x->part_lo[part + 1];
    unsigned sg = S(seg_of)(x, lo);
    S(piece) pc;
    S(piece_at)(x, sg, lo, hi, x->part_pos[part], &pc);
    S(piece_window)(x, sg, win, &pc);
    for (size_t j = lo;; j++) {
        /* next piece at a segment's end; a piece without a digit field in
         * this window (a table past its last window) is skipped whole */
        while (j < hi && (j == pc.e || !pc.len)) {
            if (j < pc.e) j = pc.e;
            if (j < hi) {
                S(piece_at)(x, ++sg, j, hi, 0, &pc);
                S(piece_window)(x, sg, win, &pc);
            }
        }
        bool more = j < hi;
        if (more) {
            const cz_scalar *s = cz__msm_cursor_next(&pc.it);
            if (x->split && cz__msm_class(s) != 2) continue;
            int32_t d = cz__msm_booth(s->l, pc.pos, pc.len);
            if (d == 0) continue;
            const AFF *p = &pc.b[j - pc.off];
            /* every cache line of the bucket and of the point: a 96-byte
             * G1 point straddles two lines half the time (a 192-byte G2
             * point three or four), and once the buckets outgrow L2, or the
             * points stream from DRAM (a table MSM reads each table point
             * once), the line not prefetched was a miss per addition
             * (scalar path, 2^18 points, c = 16 forced, CPU ms of
             * interleaved A/B runs on a loaded machine: plain 1,080-1,149
             * -> 1,022-1,028, 16 tables of 16 bits 937-1,097 -> 909-923;
             * at the planner's own c = 13 / 15 no change beyond 2 %) */
            const char *bq = (const char *)&st.bk[d > 0 ? d - 1 : -d - 1];
            for (size_t o = 0; o < sizeof(AFF); o += 64) {
                __builtin_prefetch(bq + o);
                __builtin_prefetch((const char *)p + o);
            }
            __builtin_prefetch(bq + sizeof(AFF) - 1);
            __builtin_prefetch((const char *)p + sizeof(AFF) - 1);
            if (fill < PF) {
                rd[(head + fill) % PF] = d;
                rp[(head + fill) % PF] = p;
                fill++;
                continue;
            }
            /* ring full: process the oldest, put the new one in its place */
            int32_t d0 = rd[head];
            const AFF *p0 = rp[head];
            rd[head] = d;
            rp[head] = p;
            head = (head + 1) % PF;
            if (S(is_inf)(p0)) continue;
            if (d0 > 0) S(add_point)(&st, (uint32_t)(d0 - 1), p0, 0);
            else S(add_point)(&st, (uint32_t)(-d0 - 1), p0, 1);
        } else {
            if (!fill) break;
            int32_t d0 = rd[head];
            const AFF *p0 = rp[head];
            head = (head + 1) % PF;
            fill--;
            if (S(is_inf)(p0)) continue;
            if (d0 > 0) S(add_point)(&st, (uint32_t)(d0 - 1), p0, 0);
            else S(add_point)(&st, (uint32_t)(-d0 - 1), p0, 1);
        }
    }
    S(finish)(&st);

    if (!st.ovf_used && k >= 64) {
        S(reduce_lanes)(&st, k, out);
        return;
    }
    /* running-sum reduction: running (XYZZ) += affine bucket; total += running */
    XYZZ run, tot;
    E(xyzz_set_infinity)(&run);
    E(xyzz_set_infinity)(&tot);
    size_t top = k;
    while (top > 0 && !st.occ[top - 1]) top--;
    for (size_t i = top; i-- > 0;) {
        if (st.occ[i] & 1) E(xyzz_add_affine_var)(&run, &run, &st.bk[i]);
        if (st.occ[i] & 2) E(xyzz_add_var)(&run, &run, &st.ovf[i]);
        E(xyzz_add_var)(&tot, &tot, &run);
    }
    *out = tot;
}

/* ---- driver ------------------------------------------------------------- */

static void S(worker)(void *arg, size_t slot_i)
{
    S(ctx) *x = arg;
    unsigned char *slot = x->slots + slot_i * x->slot_bytes;
    const unsigned nwin = x->pl.nwin;
    for (;;) {
        size_t t = atomic_fetch_add_explicit(&x->next, 1, memory_order_relaxed);
        if (t >= x->ntasks) break;
        unsigned win = (unsigned)(t % nwin), part = (unsigned)(t / nwin);
        XYZZ *out = &x->res[(size_t)win * x->pl.nparts + part];
        /* The top windows see only the scalars' top bits: digits there are
         * at most 2^(maxbits - win·c), so fewer buckets are in use; a batch
         * sized for all of them would be mostly conflicts (a handful of
         * buckets, one inversion per few points): size the buckets and the
         * batch by the digits that can occur, and use XYZZ when few. */
        unsigned kb = x->kbw[win];
        if (x->pl.affine && (kb >= AFFINE_MIN || x->affine_forced))
            S(task_affine)(x, slot, win, part, out, kb);
        else
            S(task_xyzz)(x, slot, win, part, out, kb);
    }
}

static unsigned S(bitlen)(const uint64_t o[4])
{
    for (int l = 3; l >= 0; l--)
        if (o[l]) return (unsigned)(64 * l + 64 - __builtin_clzll(o[l]));
    return 0;
}

static bool S(plan_lanes)(bool x8) { return x8 && X8_PLAN(); }

static bool S(use_x8)(const cz_msm_opts *opts)
{
#ifdef FLUSH_X8
    return X8_USABLE() && !(opts && opts->no_simd);
#else
    (void)opts;
    return false;
#endif
}

/* The plan used for the scratch bound: every scalar general. The real
 * plan is capped at this c; since the best c depends on how the top window
 * falls, the widest c chosen for any full width (254 to 256 bits: Fr
 * values have 254 or 255) is kept, so that the cap does not bind for
 * full-width scalars. Narrower widths are left out on purpose: the cost
 * model can prefer a wider window for them (250 bits: c = 14 where 255
 * bits take 13 at 2^16), which would double the bound — and the budget
 * every partition is charged — for scalars a proof never has; such
 * scalars only lose the wider window. */
static void S(bound_plan)(cz_msm_plan *pl, size_t n, unsigned threads, const cz_msm_opts *opts)
{
    bool x8 = S(use_x8)(opts);
    cz__msm_plan(pl, n, 256, threads, opts, CZ_MSM_MAX_WINDOW, AFFINE_MIN, S(plan_lanes)(x8));
    for (unsigned bits = 254; bits < 256; bits++) {
        cz_msm_plan t;
        cz__msm_plan(&t, n, bits, threads, opts, CZ_MSM_MAX_WINDOW, AFFINE_MIN, S(plan_lanes)(x8));
        if (t.c > pl->c) pl->c = t.c;
    }
    /* the real call may pick a smaller c (c <= this one), hence up to 257
     * windows, and at most 4T ranges */
    pl->nwin = 257;
    unsigned mp = threads == 1 ? 1 : threads * 4;
    pl->nparts = mp > CZ_MSM_MAX_PARTS ? CZ_MSM_MAX_PARTS : mp;
}

size_t MSM_PUB(_scratch_size)(size_t n, const cz_pool *pool, const cz_msm_opts *opts)
{
    unsigned th = cz__msm_threads(pool);
    cz_msm_plan pl;
    S(bound_plan)(&pl, n, th, opts);
    return S(scratch_bytes)(&pl, cz__msm_nchunks(n, th), opts);
}

size_t MSM_PUB(_scratch_resident)(size_t n, const cz_pool *pool, const cz_msm_opts *opts)
{
    unsigned th = cz__msm_threads(pool);
    cz_msm_plan pl;
    S(bound_plan)(&pl, n, th, opts);
    size_t all = S(scratch_bytes)(&pl, cz__msm_nchunks(n, th), opts);
    bool xyzz_only = opts && opts->buckets == CZ_MSM_BUCKETS_XYZZ;
    if (xyzz_only) return all;
    /* a slot is the largest of its three uses; take the overflow area out
     * of each and keep the largest remainder */
    unsigned cx = pl.c < AFFINE_MIN ? pl.c : AFFINE_MIN - 1;
    size_t k = (size_t)1 << (pl.c - 1);
    size_t a = S(slot_bytes)(pl.c, true) - S(align64)(k * sizeof(XYZZ));
    size_t o = S(affine_slot_bytes)(CZ_MSM_ONES_BATCH, CZ_MSM_ONES_BATCH) -
               S(align64)(CZ_MSM_ONES_BATCH * sizeof(XYZZ));
    size_t x = S(slot_bytes)(cx, false), m = a > o ? a : o;
    if (x > m) m = x;
    return all - (size_t)th * (S(slot_bytes_max)(pl.c, opts) - m);
}

/* The largest c the table planner picks for n points, all scalars general
 * and full width (254 to 256 bits, as S(bound_plan)), over a table set of
 * t tables of `bits` bits; 0 where the tables cannot serve such scalars. */
static unsigned S(tables_bound_c)(size_t n, unsigned t, unsigned bits, unsigned threads,
                                  const cz_msm_opts *opts)
{
    bool x8 = S(use_x8)(opts);
    unsigned best = 0;
    for (unsigned mb = 254; mb <= 256 && mb + 1 <= t * bits; mb++) {
        cz_msm_vseg v[CZ_MSM_MAX_TABLES];
        unsigned nv = 0;
        for (unsigned j = 0; j < t && j * bits <= mb; j++) {
            v[nv].bit = j * bits;
            v[nv].width = bits;
            v[nv].m = (double)n;
            nv++;
        }
        cz_msm_plan pl;
        cz__msm_plan_vsegs(&pl, v, nv, mb, threads, opts, CZ_MSM_MAX_WINDOW, AFFINE_MIN, S(plan_lanes)(x8),
                           L2_KB, 0);
        if (pl.c > best) best = pl.c;
    }
    return best;
}

size_t MSM_PUB(_tables_scratch_size)(size_t n, unsigned t, unsigned bits, const cz_pool *pool,
                                     const cz_msm_opts *opts)
{
    unsigned th = cz__msm_threads(pool);
    cz_msm_plan pl;
    S(bound_plan)(&pl, n, th, opts);
    unsigned tc = S(tables_bound_c)(n, t, bits, th, opts);
    if (tc > pl.c) pl.c = tc;
    return S(scratch_bytes)(&pl, cz__msm_nchunks(n, th), opts);
}

bool MSM_PUB(_tables_shape)(size_t m, const cz_pool *pool, const cz_msm_opts *opts, size_t max_bytes,
                           unsigned *t, unsigned *bits)
{
    unsigned th = cz__msm_threads(pool);
    bool x8 = S(use_x8)(opts);
    cz_msm_vseg v[CZ_MSM_MAX_TABLES];
    cz_msm_plan pl;
    /* the plain MSM priced by the same model (one plain segment) */
    v[0].bit = 0;
    v[0].width = CZ_MSM_PLAIN_WIDTH;
    v[0].m = (double)m;
    cz__msm_plan_vsegs(&pl, v, 1, 255, th, opts, CZ_MSM_MAX_WINDOW, AFFINE_MIN, S(plan_lanes)(x8), L2_KB, 0);
    double plain = pl.cost, cost[33], lo = INFINITY, wlo = INFINITY;
    unsigned wb = 0;
    const bool wide = opts && opts->tables_wide && !opts->window && !S(plan_lanes)(x8);
    const unsigned llc_kb = wide ? cz__msm_llc_kb(th, sizeof(AFF)) : 0;
    *t = 1;
    *bits = 256;
    /* B from 8 (32 tables) to 32 (8 tables): narrower fields need more
     * tables than CZ_MSM_MAX_TABLES, wider ones than CZ_MSM_MAX_WINDOW
     * split into several windows again */
    for (unsigned b = 8; b <= 32; b++) {
        unsigned tt = (256 + b - 1) / b, nv = 0;
        cost[b] = INFINITY;
        if (MSM_PUB(_tables_bytes)(m, tt) > max_bytes) continue;
        for (unsigned j = 0; j < tt && j * b <= 255; j++) {
            v[nv].bit = j * b;
            v[nv].width = b;
            v[nv].m = (double)m;
            nv++;
        }
        /* windows up to 17 bits: the range the model's constants were
         * fitted on (c = 12..17); past it, wider buckets (c = 20: 48 MB
         * of G1 buckets per thread) are priced by an extrapolation */
        cz__msm_plan_vsegs(&pl, v, nv, 255, th, opts, 17, AFFINE_MIN, S(plan_lanes)(x8), L2_KB, 0);
        cost[b] = pl.cost;
        if (cost[b] < lo) lo = cost[b];
        /* One window as wide as the field (c = B, 18 to 20 bits), only
         * where every thread's buckets fit in half the last-level cache,
         * priced with the milder slope measured there (l2_factor,
         * msm_common.c): 13 × 20 at 2^20 points, G1, 2 threads on a Xeon
         * with 260 MB of L3: 1.09-1.12x the plain MSM, where the 17-bit
         * cap left the plan at none (8 × 32: 0.99x). Not on the IFMA
         * lanes, whose cheaper additions leave the buckets' cache misses
         * exposed: 13 × 20 measured 0.96-0.98x there. */
        if (wide && b > 17 && b <= llc_kb) {
            cz__msm_plan_vsegs(&pl, v, nv, 255, th, opts, b, AFFINE_MIN, S(plan_lanes)(x8), L2_KB, llc_kb);
            if (pl.cost < wlo) {
                wlo = pl.cost;
                wb = b;
            }
        }
    }
    /* A wide shape holds more tables than 8 × 32 (13 for 20 bits), and its
     * slope is fitted on one machine: it must beat both the plain MSM and
     * the best narrow shape by the model's error (at 2^19 on the same
     * Xeon, 13 × 20 measured 1.06x and 8 × 32 1.07-1.10x). */
    if (wb && wlo < plain * 0.97 && wlo < lo * 0.97) {
        *t = (256 + wb - 1) / wb;
        *bits = wb;
        return true;
    }
    /* worth its memory only if the model sees a gain beyond its own error
     * (2.6 % RMS on the fit); among shapes within 2 % of the cheapest, the
     * one with the fewest tables */
    if (!(lo < plain * 0.97)) return false;
    for (unsigned b = 32; b >= 8; b--)
        if (cost[b] <= lo * 1.02) {
            *t = (256 + b - 1) / b;
            *bits = b;
            return true;
        }
    return false;
}

/* nseg segments (bases[k], scalars[k], ns[k] points, table set tabs[k] or
 * none; tabs may be NULL), or with a density bitmap bm one segment of
 * ns[0] bases and nscalars scalars. */
static cz_status S(run)(JAC *out, const AFF *const *bases, const cz_scalar *const *scalars,
                        const size_t *ns, const TAB_T *const *tabs, unsigned nseg,
                        size_t nscalars, const uint64_t *bm, cz_pool *pool,
                        const cz_msm_opts *opts)
{
    if (opts && opts->window > CZ_MSM_MAX_WINDOW) return CZ_ERR_INVALID_ARG;
    if (opts && (unsigned)opts->buckets > CZ_MSM_BUCKETS_AFFINE) return CZ_ERR_INVALID_ARG;
    E(jac_set_infinity)(out);
    cz_msm_info *info = opts ? opts->info : NULL;
    if (info) memset(info, 0, sizeof *info);
    size_t n = 0;
    for (unsigned k = 0; k < nseg; k++) n += ns[k];
    if (n == 0) return CZ_OK;

    const unsigned th = cz__msm_threads(pool);
    S(ctx) *x = calloc(1, sizeof *x);
    if (!x) return CZ_ERR_NOMEM;
    x->n = n;
    x->nseg = x->norig = nseg;
    for (unsigned k = 0; k < nseg; k++) {
        x->sb[k] = bases[k];
        x->ss[k] = scalars[k];
        x->soff[k + 1] = x->soff[k] + ns[k];
        x->sbit[k] = 0;
        x->swidth[k] = CZ_MSM_PLAIN_WIDTH;
    }
    x->nscalars = nscalars;
    x->bm = bm;
    x->split = !(opts && opts->no_split);
    x->x8 = S(use_x8)(opts);

    /* scratch: the bound for n (independent of the scalar values); a
     * table set may raise its c (S(tables_bound_c)) */
    cz_msm_plan bound;
    S(bound_plan)(&bound, n, th, opts);
    for (unsigned k = 0; tabs && k < nseg; k++) {
        if (!tabs[k]) continue;
        unsigned tc = S(tables_bound_c)(n, tabs[k]->t, tabs[k]->bits, th, opts);
        if (tc > bound.c) bound.c = tc;
    }
    x->nchunks = cz__msm_nchunks(n, th);
    size_t need = S(scratch_bytes)(&bound, x->nchunks, opts);
    unsigned char *mem, *own = NULL;
    if (opts && opts->scratch) {
        if (opts->scratch_size < need) {
            free(x);
            return CZ_ERR_INVALID_ARG;
        }
        mem = opts->scratch;
    } else {
        own = malloc(need);
        if (!own) {
            free(x);
            return CZ_ERR_NOMEM;
        }
        mem = own;
    }
    unsigned char *q = (unsigned char *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);

    x->ones = (XYZZ *)q;
    q += S(align64)(x->nchunks * sizeof(XYZZ));
    x->slots = q;
    x->slot_bytes = S(slot_bytes_max)(bound.c, opts);
    q += (size_t)th * x->slot_bytes;

    /* 1. split pass (over the call's segments only: table 0) */
    for (size_t i = 0; i <= x->nchunks; i++) x->chunk_lo[i] = n * i / x->nchunks;
    cz__msm_starts(x->chunk_pos, x->chunk_lo, x->nchunks + 1, bm, nscalars);
    atomic_store(&x->next, 0);
    cz_pool_parallel_for(pool, th < x->nchunks ? th : x->nchunks, S(split_worker), x);

    XYZZ total;
    E(xyzz_set_infinity)(&total);
    size_t cnt[3] = {0, 0, 0};
    uint64_t orb[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < x->nchunks; i++) {
        E(xyzz_add_var)(&total, &total, &x->ones[i]);
        for (int c = 0; c < 3; c++) cnt[c] += x->cnt[i][c];
        for (int l = 0; l < 4; l++) orb[l] |= x->orbits[i][l];
    }

    /* 2. Pippenger over the general scalars */
    unsigned maxbits = S(bitlen)(orb);
    unsigned ntab = 0;
    if (cnt[2]) {
        x->maxbits = maxbits;
        /* the tables: table j >= 1 of segment k as one more segment, j
         * outer, for the tables that hold digits of these scalars (j·B <=
         * maxbits); a set whose t·B bits cannot hold the recoding of
         * maxbits-bit scalars is not used (its segment stays plain) */
        for (unsigned k = 0; tabs && k < nseg; k++) {
            const TAB_T *tb = tabs[k];
            if (!tb || maxbits + 1 > tb->t * tb->bits) continue;
            x->swidth[k] = tb->bits;
            unsigned te = 1;
            while (te < tb->t && te * tb->bits <= maxbits) te++;
            if (te > ntab) ntab = te;
        }
        for (unsigned j = 1; j < ntab; j++)
            for (unsigned k = 0; k < nseg; k++) {
                const TAB_T *tb = tabs[k];
                if (x->swidth[k] == CZ_MSM_PLAIN_WIDTH || j >= tb->t || j * tb->bits > maxbits) continue;
                unsigned v = x->nseg++;
                x->sb[v] = tb->mem + (size_t)(j - 1) * tb->n;
                x->ss[v] = x->ss[k];
                x->soff[v + 1] = x->soff[v] + ns[k];
                x->sbit[v] = j * tb->bits;
                x->swidth[v] = tb->bits;
            }
        size_t nv_pts = x->soff[x->nseg];
        if (ntab) {
            /* expected general scalars per segment: the call's count
             * spread over its segments by size */
            cz_msm_vseg vs[CZ__MSM_MAX_VSEGS];
            for (unsigned v = 0; v < x->nseg; v++) {
                vs[v].bit = x->sbit[v];
                vs[v].width = x->swidth[v];
                vs[v].m = (double)cnt[2] * (double)(x->soff[v + 1] - x->soff[v]) / (double)n;
            }
            cz__msm_plan_vsegs(&x->pl, vs, x->nseg, maxbits, th, opts, bound.c, AFFINE_MIN,
                               S(plan_lanes)(x->x8), L2_KB, 0);
        } else {
            cz__msm_plan(&x->pl, cnt[2], maxbits, th, opts, bound.c, AFFINE_MIN, S(plan_lanes)(x->x8));
        }
        for (unsigned w = 0; w < x->pl.nwin; w++) {
            unsigned kb = 0;
            for (unsigned v = 0; v < x->nseg; v++) {
                unsigned b = cz__msm_seg_window_bits(x->sbit[v], x->swidth[v], maxbits, x->pl.c, w);
                if (b > kb) kb = b;
            }
            x->kbw[w] = kb ? kb : 1;
        }
        x->affine_forced = opts && opts->buckets == CZ_MSM_BUCKETS_AFFINE;
        if (x->pl.nparts > nv_pts) x->pl.nparts = (unsigned)nv_pts;
        x->res = (XYZZ *)q;
        for (unsigned i = 0; i <= x->pl.nparts; i++) x->part_lo[i] = nv_pts * i / x->pl.nparts;
        if (x->nseg == x->norig) {
            cz__msm_starts(x->part_pos, x->part_lo, x->pl.nparts + 1, bm, nscalars);
        } else {
            /* a range starts inside some table: its scalar position is
             * that of its index within that table */
            size_t local[CZ_MSM_MAX_PARTS + 1];
            for (unsigned i = 0; i <= x->pl.nparts; i++)
                local[i] = x->part_lo[i] - x->soff[S(seg_of)(x, x->part_lo[i])];
            if (bm) cz__msm_starts_any(x->part_pos, local, x->pl.nparts + 1, bm, nscalars);
            else memcpy(x->part_pos, local, (x->pl.nparts + 1) * sizeof local[0]);
        }
        x->ntasks = (size_t)x->pl.nwin * x->pl.nparts;
        atomic_store(&x->next, 0);
        size_t nworkers = th < x->ntasks ? th : x->ntasks;
        cz_pool_parallel_for(pool, nworkers, S(worker), x);

        /* combine: windows from the top, c doublings between windows */
        XYZZ acc;
        E(xyzz_set_infinity)(&acc);
        for (unsigned w = x->pl.nwin; w-- > 0;) {
            for (unsigned d = 0; d < x->pl.c && !E(xyzz_is_infinity)(&acc); d++)
                E(xyzz_dbl_var)(&acc, &acc);
            for (unsigned p = 0; p < x->pl.nparts; p++)
                E(xyzz_add_var)(&acc, &acc, &x->res[(size_t)w * x->pl.nparts + p]);
        }
        E(xyzz_add_var)(&total, &total, &acc);
    }
    E(xyzz_to_jac)(out, &total);

    if (info) {
        info->window = cnt[2] ? x->pl.c : 0;
        info->nwin = cnt[2] ? x->pl.nwin : 0;
        info->nparts = cnt[2] ? x->pl.nparts : 0;
        info->affine = cnt[2] ? x->pl.affine : false;
        info->batch = cnt[2] && x->pl.affine ? x->pl.batch : 0;
        info->threads = th;
        info->simd = x->x8;
        info->n_zero = cnt[0];
        info->n_one = cnt[1];
        info->n_general = cnt[2];
        info->scratch_bytes = need;
        info->tables = ntab;
    }
    free(own);
    free(x);
    return CZ_OK;
}

cz_status MSM_PUB()(JAC *out, const AFF *bases, const cz_scalar *scalars, size_t n,
                    cz_pool *pool, const cz_msm_opts *opts)
{
    if (!out || (n && (!bases || !scalars))) return CZ_ERR_INVALID_ARG;
    return S(run)(out, &bases, &scalars, &n, NULL, 1, n, NULL, pool, opts);
}

/* The checks and the run of _concat and _tables_concat. */
static cz_status S(concat)(JAC *out, const SEG_T *segs, const TAB_T *const *tabs, size_t nsegs,
                           cz_pool *pool, const cz_msm_opts *opts)
{
    if (!out || (nsegs && !segs) || nsegs > CZ_MSM_MAX_SEGS) return CZ_ERR_INVALID_ARG;
    const AFF *b[CZ_MSM_MAX_SEGS];
    const cz_scalar *sc[CZ_MSM_MAX_SEGS];
    size_t ns[CZ_MSM_MAX_SEGS];
    for (size_t k = 0; k < nsegs; k++) {
        const TAB_T *tb = tabs ? tabs[k] : NULL;
        if (tb && (segs[k].n != tb->n || (segs[k].bases && segs[k].bases != tb->bases)))
            return CZ_ERR_MISMATCH;
        b[k] = tb ? tb->bases : segs[k].bases;
        if (segs[k].n && (!b[k] || !segs[k].scalars)) return CZ_ERR_INVALID_ARG;
        sc[k] = segs[k].scalars;
        ns[k] = segs[k].n;
    }
    if (nsegs == 0) {
        /* the empty sum; S(run) needs one segment */
        b[0] = NULL;
        sc[0] = NULL;
        ns[0] = 0;
        tabs = NULL;
    }
    /* Segments of different digit widths (a table set's bits, or plain)
     * share no windows: one run plans one c for all of them, and a plain
     * segment at a wide table window pays a bucket reduction in each of
     * its windows for its few general scalars (at 2^20, H with 13 tables
     * of 20 bits and a plain L: H + L 4.07 s together, BENCHMARKS.md "Where
     * the non-IFMA proof's time is bounded"). So each width is a run of its
     * own, and the runs' sums are added. */
    unsigned width[CZ_MSM_MAX_SEGS], nw = 0;
    for (size_t k = 0; k < nsegs; k++) {
        unsigned wk = tabs && tabs[k] ? tabs[k]->bits : 0;
        unsigned g = 0;
        while (g < nw && width[g] != wk) g++;
        if (g == nw) width[nw++] = wk;
    }
    if (nw <= 1) return S(run)(out, b, sc, ns, tabs, nsegs ? (unsigned)nsegs : 1, 0, NULL, pool, opts);
    cz_msm_info *info = opts ? opts->info : NULL, part, best;
    cz_msm_opts o = opts ? *opts : (cz_msm_opts){0};
    o.info = &part;
    size_t most = 0, cnt[3] = {0, 0, 0}, scratch = 0;
    unsigned ntab = 0;
    E(jac_set_infinity)(out);
    for (unsigned g = 0; g < nw; g++) {
        const AFF *gb[CZ_MSM_MAX_SEGS];
        const cz_scalar *gs[CZ_MSM_MAX_SEGS];
        const TAB_T *gt[CZ_MSM_MAX_SEGS];
        size_t gn[CZ_MSM_MAX_SEGS], npts = 0;
        unsigned m = 0;
        for (size_t k = 0; k < nsegs; k++) {
            if ((tabs && tabs[k] ? tabs[k]->bits : 0) != width[g]) continue;
            gb[m] = b[k];
            gs[m] = sc[k];
            gn[m] = ns[k];
            gt[m] = tabs ? tabs[k] : NULL;
            npts += ns[k];
            m++;
        }
        JAC r;
        cz_status st = S(run)(&r, gb, gs, gn, gt, m, 0, NULL, pool, &o);
        if (st != CZ_OK) return st;
        E(jac_add_var)(out, out, &r);
        /* info: the plan of the run over the most points, every run's counts */
        if (g == 0 || npts > most) {
            most = npts;
            best = part;
        }
        cnt[0] += part.n_zero;
        cnt[1] += part.n_one;
        cnt[2] += part.n_general;
        if (part.scratch_bytes > scratch) scratch = part.scratch_bytes;
        if (part.tables > ntab) ntab = part.tables;
    }
    if (info) {
        *info = best;
        info->n_zero = cnt[0];
        info->n_one = cnt[1];
        info->n_general = cnt[2];
        info->scratch_bytes = scratch;
        info->tables = ntab;
    }
    return CZ_OK;
}

cz_status MSM_PUB(_concat)(JAC *out, const SEG_T *segs, size_t nsegs, cz_pool *pool,
                           const cz_msm_opts *opts)
{
    return S(concat)(out, segs, NULL, nsegs, pool, opts);
}

cz_status MSM_PUB(_density)(JAC *out, const AFF *bases, size_t nbases, const cz_scalar *scalars,
                            size_t nscalars, const uint64_t *density, cz_pool *pool,
                            const cz_msm_opts *opts)
{
    if (!out || (nbases && !bases) || (nscalars && (!scalars || !density)))
        return CZ_ERR_INVALID_ARG;
    if (nscalars == 0) {
        if (nbases) return CZ_ERR_MISMATCH;
        E(jac_set_infinity)(out);
        if (opts && opts->info) memset(opts->info, 0, sizeof *opts->info);
        return CZ_OK;
    }
    if (cz__msm_popcount(density, nscalars) != nbases) return CZ_ERR_MISMATCH;
    return S(run)(out, &bases, &scalars, &nbases, NULL, 1, nscalars, density, pool, opts);
}

/* ---- table sets ----------------------------------------------------------- */

size_t MSM_PUB(_tables_bytes)(size_t n, unsigned t)
{
    size_t extra = t > 1 ? (size_t)(t - 1) : 0;
    if (extra && n > (SIZE_MAX - sizeof(TAB_T)) / extra / sizeof(AFF)) return SIZE_MAX;
    return sizeof(TAB_T) + extra * n * sizeof(AFF);
}

typedef struct {
    TAB_T *tb;
    size_t nchunks;
    atomic_int nomem;
} S(tab_build);

/* Tables 1..t-1 of points [i·CHUNK, ...): table j from table j-1 by
 * `bits` doublings (Jacobian, from the normalised affine point), then one
 * batch normalisation; each table is the input of the next, so the work
 * per point is (t-1)·bits doublings whatever the chunking. */
static void S(tab_build_range)(void *arg, size_t lo, size_t hi)
{
    S(tab_build) *a = arg;
    TAB_T *tb = a->tb;
    JAC *tmp = malloc(CZ__MSM_TAB_CHUNK * sizeof *tmp);
    if (!tmp) {
        atomic_store(&a->nomem, 1);
        return;
    }
    for (size_t ch = lo; ch < hi; ch++) {
        size_t i0 = ch * CZ__MSM_TAB_CHUNK, m = tb->n - i0 < CZ__MSM_TAB_CHUNK ? tb->n - i0 : CZ__MSM_TAB_CHUNK;
        const AFF *src = tb->bases + i0;
        for (unsigned j = 1; j < tb->t; j++) {
            AFF *dst = tb->own + (size_t)(j - 1) * tb->n + i0;
            for (size_t i = 0; i < m; i++) {
                E(jac_from_affine)(&tmp[i], &src[i]);
                for (unsigned d = 0; d < tb->bits; d++) E(jac_dbl)(&tmp[i], &tmp[i]);
            }
            E(batch_to_affine)(dst, tmp, m);
            src = dst;
        }
    }
    free(tmp);
}

/* A table set's struct without its points, once the arguments every set
 * must have (build and wrap alike) are checked. */
static cz_status S(tab_new)(TAB_T **out, const AFF *bases, size_t n, unsigned t, unsigned bits, cz_errbuf *err)
{
    if (!out) return cz_err(err, CZ_ERR_INVALID_ARG, "msm tables: out is NULL");
    *out = NULL;
    if (n && !bases) return cz_err(err, CZ_ERR_INVALID_ARG, "msm tables: bases is NULL for n = %zu", n);
    if (t < 1 || t > CZ_MSM_MAX_TABLES)
        return cz_err(err, CZ_ERR_INVALID_ARG, "msm tables: t = %u tables, expected 1..%u", t,
                      (unsigned)CZ_MSM_MAX_TABLES);
    if (bits < 1 || bits > 256)
        return cz_err(err, CZ_ERR_INVALID_ARG, "msm tables: bits = %u per table, expected 1..256", bits);
    if (t * bits < 256)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "msm tables: t·bits = %u·%u = %u bits, below the 256 that the signed digits of "
                      "a 255-bit scalar span",
                      t, bits, t * bits);
    if (MSM_PUB(_tables_bytes)(n, t) == SIZE_MAX)
        return cz_err(err, CZ_ERR_NOMEM, "msm tables: %u tables of %zu points overflow the address space", t, n);
    TAB_T *tb = calloc(1, sizeof *tb);
    if (!tb) return cz_err(err, CZ_ERR_NOMEM, "msm tables: out of memory");
    tb->n = n;
    tb->t = t;
    tb->bits = bits;
    tb->bases = bases;
    *out = tb;
    return CZ_OK;
}

cz_status MSM_PUB(_tables_wrap)(TAB_T **out, const AFF *bases, size_t n, unsigned t, unsigned bits,
                                const AFF *points, cz_errbuf *err)
{
    if (t > 1 && n && !points) {
        if (out) *out = NULL;
        return cz_err(err, CZ_ERR_INVALID_ARG, "msm tables: points is NULL for %u tables of %zu bases", t, n);
    }
    cz_status st = S(tab_new)(out, bases, n, t, bits, err);
    if (st == CZ_OK) (*out)->mem = t > 1 && n ? points : NULL;
    return st;
}

const AFF *MSM_PUB(_tables_points)(const TAB_T *tab) { return tab ? tab->mem : NULL; }

cz_status MSM_PUB(_tables_build)(TAB_T **out, const AFF *bases, size_t n, unsigned t,
                                 unsigned bits, cz_pool *pool, cz_errbuf *err)
{
    cz_status st = S(tab_new)(out, bases, n, t, bits, err);
    if (st != CZ_OK) return st;
    size_t bytes = MSM_PUB(_tables_bytes)(n, t);
    TAB_T *tb = *out;
    *out = NULL;
    if (t > 1 && n) {
        tb->mem = tb->own = malloc(bytes - sizeof(TAB_T));
        if (!tb->own) {
            free(tb);
            return cz_err(err, CZ_ERR_NOMEM, "msm tables: out of memory for %zu bytes (%u tables of %zu points)",
                          bytes, t - 1, n);
        }
        S(tab_build) a;
        a.tb = tb;
        a.nchunks = (n + CZ__MSM_TAB_CHUNK - 1) / CZ__MSM_TAB_CHUNK;
        atomic_init(&a.nomem, 0);
        cz_pool_parallel_range(pool, 0, a.nchunks, 1, S(tab_build_range), &a);
        if (atomic_load(&a.nomem)) {
            free(tb->own);
            free(tb);
            return cz_err(err, CZ_ERR_NOMEM, "msm tables: out of memory for a build buffer");
        }
    }
    *out = tb;
    return CZ_OK;
}

void MSM_PUB(_tables_free)(TAB_T *tab)
{
    if (!tab) return;
    free(tab->own);
    free(tab);
}

size_t MSM_PUB(_tables_n)(const TAB_T *tab) { return tab ? tab->n : 0; }
unsigned MSM_PUB(_tables_count)(const TAB_T *tab) { return tab ? tab->t : 0; }
unsigned MSM_PUB(_tables_bits)(const TAB_T *tab) { return tab ? tab->bits : 0; }

cz_status MSM_PUB(_tables_msm)(JAC *out, const TAB_T *tab, const cz_scalar *scalars, cz_pool *pool,
                               const cz_msm_opts *opts)
{
    if (!out || !tab || (tab->n && !scalars)) return CZ_ERR_INVALID_ARG;
    size_t n = tab->n;
    return S(run)(out, &tab->bases, &scalars, &n, &tab, 1, n, NULL, pool, opts);
}

cz_status MSM_PUB(_tables_density)(JAC *out, const TAB_T *tab, const cz_scalar *scalars,
                                   size_t nscalars, const uint64_t *density, cz_pool *pool,
                                   const cz_msm_opts *opts)
{
    if (!out || !tab || (nscalars && (!scalars || !density))) return CZ_ERR_INVALID_ARG;
    size_t n = tab->n;
    if (nscalars == 0) {
        if (n) return CZ_ERR_MISMATCH;
        E(jac_set_infinity)(out);
        if (opts && opts->info) memset(opts->info, 0, sizeof *opts->info);
        return CZ_OK;
    }
    if (cz__msm_popcount(density, nscalars) != n) return CZ_ERR_MISMATCH;
    return S(run)(out, &tab->bases, &scalars, &n, &tab, 1, nscalars, density, pool, opts);
}

cz_status MSM_PUB(_tables_concat)(JAC *out, const SEG_T *segs, const TAB_T *const *tabs, size_t nsegs,
                                  cz_pool *pool, const cz_msm_opts *opts)
{
    return S(concat)(out, segs, tabs, nsegs, pool, opts);
}

#undef BI_INV
