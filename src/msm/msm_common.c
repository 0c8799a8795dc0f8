/*
 * Group-independent parts of the MSM: planning (window and split choice),
 * density bitmap helpers, bulk Fr -> scalar conversion.
 */
#include "msm_internal.h"
#include <math.h>

unsigned cz__msm_threads(const cz_pool *pool)
{
    /* the pool's workers, plus the calling thread, which takes part */
    return pool ? cz_pool_size(pool) + 1 : 1;
}

unsigned cz__msm_batch_size(unsigned c)
{
    /* A batch holds at most one pending addition per bucket; at K/4 entries
     * about one point in eight finds its bucket busy (queued and retried),
     * while the one inversion per batch is amortised over enough additions
     * once K >= 512. */
    size_t k = (size_t)1 << (c - 1);
    size_t b = k / 4;
    if (b < 1) b = 1;
    if (b > CZ_MSM_MAX_BATCH) b = CZ_MSM_MAX_BATCH;
    return (unsigned)b;
}

size_t cz__msm_nchunks(size_t n, unsigned threads)
{
    size_t ch = threads == 1 ? 1 : (size_t)threads * 4;
    if (ch > CZ_MSM_MAX_CHUNKS) ch = CZ_MSM_MAX_CHUNKS;
    if (ch > n) ch = n;
    return ch ? ch : 1;
}

static bool use_affine(const cz_msm_opts *o, unsigned c, unsigned affine_min)
{
    cz_msm_buckets b = o ? o->buckets : CZ_MSM_BUCKETS_AUTO;
    if (b == CZ_MSM_BUCKETS_XYZZ) return false;
    if (b == CZ_MSM_BUCKETS_AFFINE) return true;
    return c >= affine_min;
}

/*
 * Cost model, in units of one mixed (XYZZ + affine) addition:
 *  - per window and point range: m/np bucket additions (batched affine
 *    ≈ 0.66 plus one inversion, ≈ 4 additions, per batch; XYZZ 1.0; 5%
 *    dearer per bit of c past 14, as the buckets leave L2) and the
 *    running-sum reduction of 2^(c-1) buckets (batched affine: two affine
 *    additions each, ≈ 1.5; XYZZ: one mixed + one full addition, ≈ 2.8);
 *  - tasks are spread over T threads, so the wall cost is rounds × task;
 *  - serial tail: summing the nwin × np partial results and ~maxbits
 *    doublings.
 */
void cz__msm_plan(cz_msm_plan *pl, size_t m, unsigned maxbits, unsigned threads,
                  const cz_msm_opts *opts, unsigned cap_c, unsigned affine_min)
{
    unsigned forced = opts ? opts->window : 0;
    unsigned cmin = 1, cmax = cap_c < CZ_MSM_MAX_WINDOW ? cap_c : CZ_MSM_MAX_WINDOW;
    if (cmax < 1) cmax = 1;
    if (forced) cmin = cmax = forced;
    unsigned maxparts = threads == 1 ? 1 : threads * 4;
    if (maxparts > CZ_MSM_MAX_PARTS) maxparts = CZ_MSM_MAX_PARTS;

    double best = INFINITY;
    pl->c = cmin;
    pl->nparts = 1;
    for (unsigned c = cmin; c <= cmax; c++) {
        bool aff = use_affine(opts, c, affine_min);
        double acc = aff ? 0.66 + 4.0 / cz__msm_batch_size(c) : 1.0;
        /* past ~1 MB of buckets (c > 14) each addition misses L2 more often */
        if (c > 14) acc *= 1.0 + 0.05 * (c - 14);
        double red = aff ? 1.5 : 2.8;
        double k = (double)((size_t)1 << (c - 1));
        unsigned nwin = (maxbits + 1 + c - 1) / c;
        for (unsigned np = 1; np <= maxparts; np++) {
            double rounds = ceil((double)nwin * np / threads);
            double task = (double)m / np * acc + k * red;
            double cost = rounds * task + (double)nwin * np * 1.4 + (double)maxbits * 1.2;
            if (cost < best) {
                best = cost;
                pl->c = c;
                pl->nparts = np;
            }
            if ((double)m / np < 1.0) break;
        }
    }
    pl->nwin = (maxbits + 1 + pl->c - 1) / pl->c;
    pl->affine = use_affine(opts, pl->c, affine_min);
    pl->affine_min = affine_min;
    pl->batch = cz__msm_batch_size(pl->c);
    pl->threads = threads;
}

size_t cz__msm_popcount(const uint64_t *bm, size_t nbits)
{
    size_t cnt = 0, full = nbits >> 6;
    for (size_t i = 0; i < full; i++) cnt += (size_t)__builtin_popcountll(bm[i]);
    if (nbits & 63) cnt += (size_t)__builtin_popcountll(bm[full] & ((UINT64_C(1) << (nbits & 63)) - 1));
    return cnt;
}

void cz__msm_starts(size_t *pos, const size_t *bounds, size_t nb, const uint64_t *bm,
                    size_t nscalars)
{
    if (!bm) {
        for (size_t i = 0; i < nb; i++) pos[i] = bounds[i];
        return;
    }
    size_t nwords = (nscalars + 63) >> 6;
    size_t seen = 0, w = 0, i = 0;
    for (; i < nb; i++) {
        size_t target = bounds[i];
        /* advance whole words while the target set bit lies beyond them */
        while (w < nwords) {
            uint64_t word = bm[w];
            if (w == nwords - 1 && (nscalars & 63)) word &= (UINT64_C(1) << (nscalars & 63)) - 1;
            size_t c = (size_t)__builtin_popcountll(word);
            if (seen + c > target) {
                /* the (target - seen)-th set bit of this word */
                for (size_t k = target - seen; k; k--) word &= word - 1;
                pos[i] = (w << 6) + (size_t)__builtin_ctzll(word);
                break;
            }
            seen += c;
            w++;
        }
        if (w >= nwords) pos[i] = nscalars;
    }
}

typedef struct {
    cz_scalar *out;
    const cz_fr *in;
} fr_conv;

static void fr_conv_range(void *arg, size_t lo, size_t hi)
{
    const fr_conv *a = arg;
    for (size_t i = lo; i < hi; i++) {
        uint64_t t[4];
        cz_fr_to_raw(t, &a->in[i]);
        memcpy(a->out[i].l, t, sizeof t);
    }
}

void cz_msm_scalars_from_fr(cz_scalar *out, const cz_fr *in, size_t n, cz_pool *pool)
{
    fr_conv a = {out, in};
    if (n == 0) return;
    cz_pool_parallel_range(pool, 0, n, 4096, fr_conv_range, &a);
}
