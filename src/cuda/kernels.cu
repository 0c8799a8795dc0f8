/*
 * cuzk CUDA backend — kernels and their drivers (NTT, Groth16 quotient,
 * scalar conversion, density gather, G1 Pippenger MSM).
 *
 * Every kernel is a grid-stride-free, one-thread-per-item wrapper around a
 * function of dev_algo.h (tested on the host by tests/cuda); the drivers
 * below only choose launch sizes and the order of launches. Drivers take
 * device pointers and a stream, report every CUDA error through CZC_TRY
 * (cuda_internal.h) and free what they allocated on every path.
 *
 * Design (details in src/cuda/README.md):
 *   NTT: bit reversal, then the log n radix-2 stages in groups, one launch
 *     per group, each block working a 2^11-element tile in shared memory
 *     (bit reversal + 3 tile passes at 2^27); twiddles w^0..w^(n/2)
 *     resident per domain size; per-element factors g^±i / n from
 *     two-level tables, applied inside the passes (no pass of their own).
 *     The quotient is the 6 transforms of cz_quotient_h chained on one
 *     stream, no host copies; its first four pair a DIF inverse with a
 *     DIT forward (sharing one launch) and the last two are DIFs, so one
 *     bit-reversal pass (at the end) is all it permutes. The launch lists
 *     are built by dev_algo.h ("transform programs"), which the host
 *     replay runs too.
 *   MSM: points are processed in chunks of 2^chunk_log; per chunk a
 *     counting sort by (window, |digit|) (count with atomics, per-window
 *     block scan, scatter with atomic cursors), then each bucket's entries
 *     are added in pieces of 2^piece_log by one thread each (a bucket
 *     holding many points is split over many threads, their partial sums
 *     merged) into XYZZ buckets that persist over the chunks. Then each
 *     window's buckets are reduced in G groups (running sums), the groups
 *     folded pairwise, and the host combines the windows (Horner) and the
 *     scalar = 1 batch sum.
 */
#include "cuda/cuda_internal.h"
#include "cuda/dev_algo.h"
#include <stdlib.h>
#include <string.h>

/* launch parameters: dev_launch.h (shared with the host replay) */
#define CZC_BLOCK CZ_DEV_BLOCK

static unsigned grid_for(uint64_t n) { return (unsigned)cz_d_grid(n); }

#define CZC_TID() ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x)

/* ---- kernels ---------------------------------------------------------------- */

/* the bit-reversal pass, op applied to each element as it moves */
__global__ void k_bitrev(cz_fr *x, unsigned log_n, uint64_t n, cz_ntt_fuse op)
{
    uint64_t i = CZC_TID();
    if (i < n) cz_d_ntt_bitrev_op(x, log_n, i, &op);
}

/* an element step (dev_algo.h "transform programs"): x[i] = op(x[i]) */
__global__ void k_ntt_elem(cz_fr *x, unsigned log_n, uint64_t n, cz_ntt_fuse op)
{
    uint64_t i = CZC_TID();
    if (i < n) cz_d_fuse_apply(&x[i], &op, log_n, i);
}

/* a tile step, one tile per block (CZ_NTT_TILE_THREADS threads, 2^(k+r)
 * · 32 B of dynamic shared memory): load with st.pre, st.seq[0], st.mid,
 * st.seq[1], store with st.post, a barrier after each phase. Bounded to
 * two blocks per SM, i.e. at most 64 registers a thread (65,536 per SM).
 * FUSED = false for the steps without element operations (12 of the
 * quotient's 16 tile launches at 2^27): ptxas gives that variant 64 registers and no
 * spills, the fused one 64 registers and 4 (sm_90) or 8 (sm_80) bytes of
 * spill. */
template <bool FUSED>
__global__ void __launch_bounds__(CZ_NTT_TILE_THREADS, 2)
    k_ntt_tile(const cz_fr *tw, unsigned log_n, cz_ntt_step st)
{
    extern __shared__ cz_fr sh[];
    const cz_ntt_fuse none = { CZ_FUSE_NONE };
    unsigned t = threadIdx.x;
    uint64_t b = blockIdx.x;
    cz_d_ntt_tile_load(sh, st.x, &st.g, log_n, b, t, FUSED ? &st.pre : &none);
    __syncthreads();
    for (unsigned q = 0; q < st.g.k; q++) {
        cz_d_ntt_tile_seq_stage(sh, tw, &st.g, log_n, b, q, t, st.seq[0]);
        __syncthreads();
    }
    if (FUSED && st.mid.op != CZ_FUSE_NONE) {
        cz_d_ntt_tile_apply(sh, &st.g, log_n, b, t, &st.mid);
        __syncthreads();
    }
    for (unsigned q = 0; st.seq[1] != CZ_SEQ_NONE && q < st.g.k; q++) {
        cz_d_ntt_tile_seq_stage(sh, tw, &st.g, log_n, b, q, t, st.seq[1]);
        __syncthreads();
    }
    cz_d_ntt_tile_store(st.x, sh, &st.g, log_n, b, t, FUSED ? &st.post : &none);
}

__global__ void k_twiddle(cz_fr *tw, const cz_fr *lo, const cz_fr *hi, uint64_t count)
{
    uint64_t j = CZC_TID();
    if (j < count) cz_d_ntt_twiddle(tw, lo, hi, j);
}

__global__ void k_check_rows(const cz_fr *a, const cz_fr *b, const cz_fr *c, uint64_t n, unsigned long long *bad)
{
    uint64_t i = CZC_TID();
    if (i < n && cz_d_row_unsatisfied(a, b, c, i)) atomicMin(bad, (unsigned long long)i);
}

__global__ void k_from_mont(cz_scalar *out, const cz_fr *in, uint64_t n)
{
    uint64_t i = CZC_TID();
    if (i < n) cz_d_scalar_from_mont(out, in, i);
}

__global__ void k_gather(cz_scalar *dst, const cz_scalar *src, uint64_t n, const uint64_t *bm, const uint32_t *prefix)
{
    uint64_t k = CZC_TID();
    if (k < n) cz_d_gather_density(dst, src, bm, prefix, k);
}

/* MSM kernels: the bodies (bound checks included) are in dev_algo.h */
__global__ void k_msm_count(const cz_scalar *sc, uint64_t n, unsigned c, unsigned nwin, uint32_t nb, uint32_t *cnt)
{
    cz_d_msm_count(sc, n, c, nwin, nb, cnt, CZC_TID());
}

/* one block of CZ_MSM_SCAN_THREADS per window; the phases of dev_algo.h */
__global__ void k_msm_scan(uint32_t *cnt, uint32_t *cursor, uint32_t nb)
{
    __shared__ uint32_t sums[CZ_MSM_SCAN_THREADS];
    unsigned t = threadIdx.x;
    uint32_t local = cz_d_msm_scan_local(sums, cnt, nb, blockIdx.x, t);
    __syncthreads();
    for (unsigned off = 1; off < CZ_MSM_SCAN_THREADS; off <<= 1) {
        uint32_t v = cz_d_msm_scan_read(sums, t, off);
        __syncthreads();
        cz_d_msm_scan_add(sums, t, v);
        __syncthreads();
    }
    cz_d_msm_scan_write(cnt, cursor, nb, sums, local, blockIdx.x, t);
}

__global__ void k_msm_scatter(const cz_scalar *sc, uint64_t n, unsigned c, unsigned nwin, uint32_t nb,
                              uint32_t *cursor, uint32_t *sorted, uint64_t stride)
{
    cz_d_msm_scatter(sc, n, c, nwin, nb, cursor, sorted, stride, CZC_TID());
}

__global__ void k_msm_pieces_count(uint32_t *pc, uint32_t *qc, const uint32_t *off, unsigned nwin, uint32_t nb,
                                   unsigned piece_log)
{
    cz_d_msm_pieces_count(pc, qc, off, nwin, nb, piece_log, CZC_TID());
}

__global__ void k_msm_piece(cz_g1_xyzz *buckets, cz_g1_xyzz *partial, const uint32_t *sorted, const uint32_t *off,
                            const uint32_t *pp, const uint32_t *qp, const cz_g1_affine *bases, cz_msm_plan pl,
                            uint64_t stride)
{
    cz_d_msm_piece(buckets, partial, sorted, off, pp, qp, bases, &pl, stride, CZC_TID());
}

__global__ void k_msm_merge(cz_g1_xyzz *buckets, const cz_g1_xyzz *partial, const uint32_t *qp, cz_msm_plan pl)
{
    cz_d_msm_merge(buckets, partial, qp, &pl, CZC_TID());
}

__global__ void k_msm_reduce(cz_g1_xyzz *grp, const cz_g1_xyzz *buckets, unsigned nwin, uint32_t nb, uint32_t G)
{
    cz_d_msm_reduce(grp, buckets, nwin, nb, G, CZC_TID());
}

__global__ void k_fold(cz_g1_xyzz *p, uint64_t len, uint64_t half, uint64_t rows)
{
    cz_d_fold(p, len, half, rows, CZC_TID());
}

__global__ void k_msm_ones(cz_g1_xyzz *part, const cz_g1_affine *bases, const cz_scalar *sc, uint64_t n, uint64_t T)
{
    cz_d_msm_ones_thread(part, bases, sc, n, T, CZC_TID());
}

__global__ void k_tile(cz_g1_affine *out, uint64_t n, const cz_g1_affine *src, uint64_t k)
{
    uint64_t i = CZC_TID();
    if (i < n) out[i] = src[i % k];
}

__device__ static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

__global__ void k_fill_random(cz_fr *x, uint64_t n, uint64_t seed)
{
    uint64_t i = CZC_TID();
    if (i >= n) return;
    cz_fr v;
    for (int j = 0; j < 4; j++) v.l[j] = splitmix(seed ^ (i * 4 + (uint64_t)j) * 0x2545f4914f6cdd1dULL);
    v.l[3] &= 0x3fffffffffffffffULL; /* < 2^254 < r: reduced */
    x[i] = v;
}

/* intrinsics vs their host emulations (dev_intrin.h) on pseudo-random and
 * edge values: thread i tests value pair i; *bad counts mismatches */
__global__ void k_check_intrin(uint64_t n, uint64_t seed, unsigned long long *bad)
{
    uint64_t i = CZC_TID();
    if (i >= n) return;
    uint64_t a, b;
    if (i < 128) { /* 0, 1, all ones, single bits, all ones but one bit */
        const uint64_t e[5] = { 0, 1, ~0ULL, 1ULL << (i % 64), ~(1ULL << (i % 64)) };
        a = e[i % 5];
        b = e[(i / 5) % 5];
    } else {
        a = splitmix(seed ^ (2 * i));
        b = splitmix(seed ^ (2 * i + 1));
        if (i & 1) a >>= (b & 63); /* short operands too */
    }
    unsigned long long m = 0;
    m += (unsigned long long)(__umul64hi((unsigned long long)a, (unsigned long long)b) != czh_umul64hi(a, b));
    m += (unsigned long long)(__popcll((unsigned long long)a) != czh_popcll(a));
    m += (unsigned long long)(__brevll((unsigned long long)a) != czh_brevll(a));
    if (m) atomicAdd(bad, m);
}

/* 32-bit carry-chain Montgomery multiplication (dev_mul32.h, PTX path) vs
 * the 64-bit CIOS, Fp and Fr, on n pseudo-random reduced pairs */
__global__ void k_check_mul32(uint64_t n, uint64_t seed, unsigned long long *bad)
{
    uint64_t i = CZC_TID();
    if (i >= n) return;
    cz_fp a, b, x, y;
    cz_fr c, d, u, v;
    for (int j = 0; j < 6; j++) {
        a.l[j] = splitmix(seed ^ (16 * i + (uint64_t)j));
        b.l[j] = splitmix(seed ^ (16 * i + 6 + (uint64_t)j));
    }
    a.l[5] &= 0x0fffffffffffffffULL; /* < p */
    b.l[5] &= 0x0fffffffffffffffULL;
    if (i == 0) cz_d_fp_neg(&a, &b); /* p - b: a large operand */
    for (int j = 0; j < 4; j++) {
        c.l[j] = a.l[j];
        d.l[j] = b.l[j];
    }
    c.l[3] &= 0x3fffffffffffffffULL; /* < r */
    d.l[3] &= 0x3fffffffffffffffULL;
    const uint64_t pp[6] = CZ_DEV_FP_P, pr[4] = CZ_DEV_FR_P;
    cz_d_mont_mul64(x.l, a.l, b.l, pp, CZ_DEV_FP_INV, 6);
    cz_d_mont_mul32(y.l, a.l, b.l, pp, CZ_DEV_FP_INV, 6);
    cz_d_mont_mul64(u.l, c.l, d.l, pr, CZ_DEV_FR_INV, 4);
    cz_d_mont_mul32(v.l, c.l, d.l, pr, CZ_DEV_FR_INV, 4);
    unsigned long long m = (unsigned long long)!cz_d_fp_eq(&x, &y) + (unsigned long long)!cz_d_fr_eq(&u, &v);
    if (m) atomicAdd(bad, m);
}

/* throughput: iters dependent Fp multiplications per thread (variant 0:
 * 64-bit CIOS, 1: 32-bit carry chains) */
__global__ void k_bench_mul(cz_fp *out, uint64_t n, unsigned iters, int variant)
{
    uint64_t i = CZC_TID();
    if (i >= n) return;
    cz_fp x, y;
    for (int j = 0; j < 6; j++) {
        x.l[j] = splitmix(i * 12 + (uint64_t)j);
        y.l[j] = splitmix(i * 12 + 6 + (uint64_t)j);
    }
    x.l[5] &= 0x0fffffffffffffffULL;
    y.l[5] &= 0x0fffffffffffffffULL;
    const uint64_t pp[6] = CZ_DEV_FP_P;
    for (unsigned k = 0; k < iters; k++) {
        if (variant) cz_d_mont_mul32(x.l, x.l, y.l, pp, CZ_DEV_FP_INV, 6);
        else cz_d_mont_mul64(x.l, x.l, y.l, pp, CZ_DEV_FP_INV, 6);
    }
    out[i] = x;
}

/* ---- drivers ---------------------------------------------------------------------- */
extern "C" {

#define LAUNCH_CHECK() CZC_TRY(cudaGetLastError())

size_t czc_domain_bytes(unsigned log_n) { return cz_d_domain_bytes(log_n); }

void czc_domain_free(czc_domain *d)
{
    cudaFree(d->tw);
    cudaFree(d->g_lo);
    cudaFree(d->g_hi);
    cudaFree(d->gi_lo);
    cudaFree(d->gi_hi);
    cudaFree(d->s_lo);
    cudaFree(d->s_hi);
    cudaFree(d->si_lo);
    cudaFree(d->si_hi);
    memset(d, 0, sizeof *d);
}

cz_status czc_domain_build(czc_domain *d, unsigned log_n, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    uint64_t n = (uint64_t)1 << log_n, ntw = n / 2 + 1;
    uint64_t nhi_tw = (ntw >> CZ_DEV_TAB_BITS) + 1, nhi = (n >> CZ_DEV_TAB_BITS) + 1;
    cz_fr *h_lo = NULL, *h_hi = NULL, *d_lo = NULL, *d_hi = NULL;
    cz_fr w, g, gi, sr, sri, one = CZ_FR_ONE;
    memset(d, 0, sizeof *d);
    d->log_n = log_n;
    cz_fr_root_of_unity(&w, log_n);
    cz_fr_root_of_unity(&sr, log_n + 1);
    cz_fr_inv(&sri, &sr);
    cz_fr_from_u64(&g, 7);
    cz_fr_inv(&gi, &g);
    cz_fr_from_u64(&d->n_inv, n);
    cz_fr_inv(&d->n_inv, &d->n_inv);
    cz_fr_from_u64(&d->inv_2n, 2 * n);
    cz_fr_inv(&d->inv_2n, &d->inv_2n);
    /* the four two-level power tables: g, g^-1, s, s^-1 */
    struct { cz_fr base; cz_fr **lo, **hi; } pw[4] = {
        { g, &d->g_lo, &d->g_hi }, { gi, &d->gi_lo, &d->gi_hi },
        { sr, &d->s_lo, &d->s_hi }, { sri, &d->si_lo, &d->si_hi },
    };

    uint64_t nh = nhi_tw > nhi ? nhi_tw : nhi;
    h_lo = (cz_fr *)malloc(CZ_DEV_TAB_LO * sizeof(cz_fr));
    h_hi = (cz_fr *)malloc(nh * sizeof(cz_fr));
    if (!h_lo || !h_hi) {
        st = cz_err(err, CZ_ERR_NOMEM, "cuda: out of host memory for NTT tables");
        goto out;
    }
    CZC_TRY(cudaMalloc((void **)&d->tw, ntw * sizeof(cz_fr)));
    for (int k = 0; k < 4; k++) {
        CZC_TRY(cudaMalloc((void **)pw[k].lo, CZ_DEV_TAB_LO * sizeof(cz_fr)));
        CZC_TRY(cudaMalloc((void **)pw[k].hi, nhi * sizeof(cz_fr)));
    }
    CZC_TRY(cudaMalloc((void **)&d_lo, CZ_DEV_TAB_LO * sizeof(cz_fr)));
    CZC_TRY(cudaMalloc((void **)&d_hi, nhi_tw * sizeof(cz_fr)));
    /* twiddles: w^j = hi[j >> 16] lo[j & 0xffff], expanded on the device */
    cz_d_pow_tables(h_lo, CZ_DEV_TAB_LO, h_hi, nhi_tw, &w, &one);
    CZC_TRY(cudaMemcpyAsync(d_lo, h_lo, CZ_DEV_TAB_LO * sizeof(cz_fr), cudaMemcpyHostToDevice, s));
    CZC_TRY(cudaMemcpyAsync(d_hi, h_hi, nhi_tw * sizeof(cz_fr), cudaMemcpyHostToDevice, s));
    k_twiddle<<<grid_for(ntw), CZC_BLOCK, 0, s>>>(d->tw, d_lo, d_hi, ntw);
    LAUNCH_CHECK();
    CZC_TRY(cudaStreamSynchronize(s)); /* h_lo / h_hi are reused below */
    /* Every copy goes on s, the stream that uses the tables: a synchronous
     * cudaMemcpy runs on the legacy default stream, which is not ordered
     * against the context's non-blocking streams. Each host buffer is
     * reused only after s has passed its copy. */
    for (int k = 0; k < 4; k++) {
        cz_d_pow_tables(h_lo, CZ_DEV_TAB_LO, h_hi, nhi, &pw[k].base, &one);
        CZC_TRY(cudaMemcpyAsync(*pw[k].lo, h_lo, CZ_DEV_TAB_LO * sizeof(cz_fr), cudaMemcpyHostToDevice, s));
        CZC_TRY(cudaMemcpyAsync(*pw[k].hi, h_hi, nhi * sizeof(cz_fr), cudaMemcpyHostToDevice, s));
        CZC_TRY(cudaStreamSynchronize(s));
    }
out:
    /* on an error path copies may still be queued: drain s before the host
     * buffers and the temporary device tables go */
    if (st != CZ_OK) (void)cudaStreamSynchronize(s);
    cudaFree(d_lo);
    cudaFree(d_hi);
    free(h_lo);
    free(h_hi);
    if (st != CZ_OK) czc_domain_free(d);
    return st;
}

/* Launches the steps of a transform program (dev_algo.h) on s. */
static cz_status run_steps(const cz_ntt_step *steps, unsigned ns, const czc_domain *d, cudaStream_t s,
                           cz_errbuf *err)
{
    cz_status st = CZ_OK;
    uint64_t n = (uint64_t)1 << d->log_n;
    /* tiles above 48 KiB need the kernels' dynamic shared memory limit raised */
    const int shmax = (int)(((size_t)1 << CZ_NTT_TILE_LOG) * sizeof(cz_fr));
    CZC_TRY(cudaFuncSetAttribute(k_ntt_tile<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, shmax));
    CZC_TRY(cudaFuncSetAttribute(k_ntt_tile<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, shmax));
    for (unsigned i = 0; i < ns; i++) {
        const cz_ntt_step *p = &steps[i];
        if (p->kind == CZ_STEP_BITREV) {
            k_bitrev<<<grid_for(n), CZC_BLOCK, 0, s>>>(p->x, d->log_n, n, p->pre);
        } else if (p->kind == CZ_STEP_ELEMENT) {
            k_ntt_elem<<<grid_for(n), CZC_BLOCK, 0, s>>>(p->x, d->log_n, n, p->pre);
        } else {
            size_t shmem = ((size_t)1 << (p->g.k + p->g.r)) * sizeof(cz_fr);
            unsigned blocks = (unsigned)cz_d_ntt_tiles(&p->g, d->log_n);
            if (cz_d_ntt_step_fused(p)) k_ntt_tile<true><<<blocks, CZ_NTT_TILE_THREADS, shmem, s>>>(d->tw, d->log_n, *p);
            else k_ntt_tile<false><<<blocks, CZ_NTT_TILE_THREADS, shmem, s>>>(d->tw, d->log_n, *p);
        }
        LAUNCH_CHECK();
    }
out:
    return st;
}

static_assert((int)CZC_NTT_FWD == (int)CZ_D_NTT_FWD && (int)CZC_NTT_INV == (int)CZ_D_NTT_INV &&
                  (int)CZC_NTT_COSET_FWD == (int)CZ_D_NTT_COSET_FWD &&
                  (int)CZC_NTT_COSET_INV == (int)CZ_D_NTT_COSET_INV,
              "czc_ntt's kinds are dev_algo.h's");

cz_status czc_ntt(cz_fr *x, const czc_domain *d, int kind, cudaStream_t s, cz_errbuf *err)
{
    cz_ntt_plan pl;
    cz_d_ntt_plan(&pl, d->log_n, CZ_NTT_TILE_LOG);
    cz_d_coset_tabs tb = { d->g_lo, d->g_hi, d->gi_lo, d->gi_hi, d->n_inv };
    cz_ntt_step st[CZ_NTT_STEPS_MAX];
    unsigned ns = 0;
    cz_d_ntt_kind_program(st, &ns, x, &pl, kind, &tb);
    return run_steps(st, ns, d, s, err);
}

cz_status czc_check_rows(const cz_fr *a, const cz_fr *b, const cz_fr *c, uint64_t n, uint64_t *d_bad,
                         cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    CZC_TRY(cudaMemsetAsync(d_bad, 0xff, sizeof *d_bad, s));
    k_check_rows<<<grid_for(n), CZC_BLOCK, 0, s>>>(a, b, c, n, (unsigned long long *)d_bad);
    LAUNCH_CHECK();
out:
    return st;
}

typedef struct {
    const czc_domain *d;
    cudaStream_t s;
    cz_errbuf *err;
    cz_status st;
} step_launch;

static bool launch_part(void *arg, const cz_ntt_step *steps, unsigned ns)
{
    step_launch *l = (step_launch *)arg;
    l->st = run_steps(steps, ns, l->d, l->s, l->err);
    return l->st == CZ_OK;
}

cz_status czc_quotient(cz_fr *a, cz_fr *b, cz_fr *c, const czc_domain *d, cudaStream_t s, cz_errbuf *err)
{
    /* the six transforms of cz_quotient_h (coset s<w>, s = w_2n), their
     * element operations fused into the tile passes (dev_algo.h) */
    cz_d_quotient_tabs tb = { d->s_lo, d->s_hi, d->si_lo, d->si_hi, d->n_inv, d->inv_2n };
    step_launch l = { d, s, err, CZ_OK };
    (void)cz_d_quotient_each(a, b, c, d->log_n, CZ_NTT_TILE_LOG, &tb, launch_part, &l);
    return l.st;
}

cz_status czc_scalars_from_mont(cz_scalar *out, const cz_fr *in, uint64_t n, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    if (!n) return CZ_OK;
    k_from_mont<<<grid_for(n), CZC_BLOCK, 0, s>>>(out, in, n);
    LAUNCH_CHECK();
out:
    return st;
}

cz_status czc_gather(cz_scalar *dst, const cz_scalar *src, uint64_t nsrc, const uint64_t *bm, const uint32_t *prefix,
                     cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    if (!nsrc) return CZ_OK;
    k_gather<<<grid_for(nsrc), CZC_BLOCK, 0, s>>>(dst, src, nsrc, bm, prefix);
    LAUNCH_CHECK();
out:
    return st;
}

cz_status czc_tile_bases(cz_g1_affine *out, uint64_t n, const cz_g1_affine *src, uint64_t k, cudaStream_t s,
                         cz_errbuf *err)
{
    cz_status st = CZ_OK;
    k_tile<<<grid_for(n), CZC_BLOCK, 0, s>>>(out, n, src, k);
    LAUNCH_CHECK();
out:
    return st;
}

cz_status czc_fill_random_fr(cz_fr *x, uint64_t n, uint64_t seed, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    k_fill_random<<<grid_for(n), CZC_BLOCK, 0, s>>>(x, n, seed);
    LAUNCH_CHECK();
out:
    return st;
}

cz_status czc_check_intrin(uint64_t n, uint64_t seed, uint64_t *mismatches, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    unsigned long long *d_bad = NULL, h_bad = 0;
    CZC_TRY(cudaMalloc((void **)&d_bad, sizeof *d_bad));
    CZC_TRY(cudaMemsetAsync(d_bad, 0, sizeof *d_bad, s));
    k_check_intrin<<<grid_for(n), CZC_BLOCK, 0, s>>>(n, seed, d_bad);
    LAUNCH_CHECK();
    CZC_TRY(cudaMemcpyAsync(&h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, s));
    CZC_TRY(cudaStreamSynchronize(s));
    *mismatches = h_bad;
out:
    if (st != CZ_OK) (void)cudaStreamSynchronize(s);
    cudaFree(d_bad);
    return st;
}

cz_status czc_check_mul32(uint64_t n, uint64_t seed, uint64_t *mismatches, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    unsigned long long *d_bad = NULL, h_bad = 0;
    CZC_TRY(cudaMalloc((void **)&d_bad, sizeof *d_bad));
    CZC_TRY(cudaMemsetAsync(d_bad, 0, sizeof *d_bad, s));
    k_check_mul32<<<grid_for(n), CZC_BLOCK, 0, s>>>(n, seed, d_bad);
    LAUNCH_CHECK();
    CZC_TRY(cudaMemcpyAsync(&h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, s));
    CZC_TRY(cudaStreamSynchronize(s));
    *mismatches = h_bad;
out:
    if (st != CZ_OK) (void)cudaStreamSynchronize(s);
    cudaFree(d_bad);
    return st;
}

cz_status czc_bench_mul(int variant, uint64_t nthreads, unsigned iters, double *ms, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    cz_fp *d_out = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float t = 0;
    CZC_TRY(cudaMalloc((void **)&d_out, nthreads * sizeof *d_out));
    CZC_TRY(cudaEventCreate(&e0));
    CZC_TRY(cudaEventCreate(&e1));
    CZC_TRY(cudaEventRecord(e0, s));
    k_bench_mul<<<grid_for(nthreads), CZC_BLOCK, 0, s>>>(d_out, nthreads, iters, variant);
    LAUNCH_CHECK();
    CZC_TRY(cudaEventRecord(e1, s));
    CZC_TRY(cudaEventSynchronize(e1));
    CZC_TRY(cudaEventElapsedTime(&t, e0, e1));
    *ms = t;
out:
    if (st != CZ_OK) (void)cudaStreamSynchronize(s);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(d_out);
    return st;
}

/* ---- MSM ---------------------------------------------------------------------------- */
typedef cz_msm_plan msm_plan;

static void plan(msm_plan *p, uint64_t n, const czc_msm_cfg *cfg)
{
    cz_d_msm_plan(p, n, cfg ? cfg->window : 0, cfg ? cfg->chunk_log : 0);
}

size_t czc_msm_g1_scratch_bytes(uint64_t n, const czc_msm_cfg *cfg)
{
    msm_plan p;
    plan(&p, n, cfg);
    /* buckets; cnt, cursor, piece and slot prefixes; sorted indices; partial
     * sums of split buckets; reduction groups; scalar = 1 sums */
    return (size_t)p.nwin * p.nb * sizeof(cz_g1_xyzz) + 4 * (size_t)p.nwin * (p.nb + 1) * sizeof(uint32_t) +
           (size_t)p.nwin * p.chunk * sizeof(uint32_t) + (size_t)p.nwin * p.qmax * sizeof(cz_g1_xyzz) +
           (size_t)p.nwin * p.G * sizeof(cz_g1_xyzz) + (size_t)p.T * sizeof(cz_g1_xyzz);
}

static cz_status fold(cz_g1_xyzz *p, uint64_t len, uint64_t rows, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    for (uint64_t half = len / 2; half >= 1; half /= 2) {
        k_fold<<<grid_for(rows * half), CZC_BLOCK, 0, s>>>(p, len, half, rows);
        LAUNCH_CHECK();
    }
out:
    return st;
}

cz_status czc_msm_g1(cz_g1_jac *out, const cz_g1_affine *bases, const cz_scalar *sc, uint64_t n,
                     const czc_msm_cfg *cfg, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    cz_g1_jac_set_infinity(out);
    if (!n) return CZ_OK;
    if (cfg && cfg->window > CZ_MSM_WINDOW_MAX)
        return cz_err(err, CZ_ERR_INVALID_ARG, "cuda msm: window %u > %u", cfg->window, CZ_MSM_WINDOW_MAX);
    msm_plan p;
    plan(&p, n, cfg);
    cz_g1_xyzz *buckets = NULL, *grp = NULL, *part = NULL, *partial = NULL, *h_win = NULL, h_ones, res;
    uint32_t *cnt = NULL, *cursor = NULL, *pc = NULL, *qc = NULL, *sorted = NULL;
    size_t nbk = (size_t)p.nwin * p.nb, ncnt = (size_t)p.nwin * (p.nb + 1);
    CZC_TRY(cudaMalloc((void **)&buckets, nbk * sizeof *buckets));
    CZC_TRY(cudaMalloc((void **)&cnt, ncnt * sizeof *cnt));
    CZC_TRY(cudaMalloc((void **)&cursor, ncnt * sizeof *cursor));
    CZC_TRY(cudaMalloc((void **)&pc, ncnt * sizeof *pc));
    CZC_TRY(cudaMalloc((void **)&qc, ncnt * sizeof *qc));
    CZC_TRY(cudaMalloc((void **)&partial, (size_t)p.nwin * p.qmax * sizeof *partial));
    CZC_TRY(cudaMalloc((void **)&sorted, (size_t)p.nwin * p.chunk * sizeof *sorted));
    CZC_TRY(cudaMalloc((void **)&grp, (size_t)p.nwin * p.G * sizeof *grp));
    CZC_TRY(cudaMalloc((void **)&part, (size_t)p.T * sizeof *part));
    /* infinity is all-zero (ZZ = 0) */
    CZC_TRY(cudaMemsetAsync(buckets, 0, nbk * sizeof *buckets, s));

    /* scalar = 1: batch addition, T strided partial sums folded to one */
    k_msm_ones<<<grid_for(p.T), CZC_BLOCK, 0, s>>>(part, bases, sc, n, p.T);
    LAUNCH_CHECK();
    if ((st = fold(part, p.T, 1, s, err)) != CZ_OK) goto out;

    for (uint64_t base = 0; base < n; base += p.chunk) {
        uint64_t len = n - base < p.chunk ? n - base : p.chunk;
        CZC_TRY(cudaMemsetAsync(cnt, 0, ncnt * sizeof *cnt, s));
        k_msm_count<<<grid_for(len), CZC_BLOCK, 0, s>>>(sc + base, len, p.c, p.nwin, p.nb, cnt);
        LAUNCH_CHECK();
        k_msm_scan<<<p.nwin, CZ_MSM_SCAN_THREADS, 0, s>>>(cnt, cursor, p.nb);
        LAUNCH_CHECK();
        k_msm_scatter<<<grid_for(len), CZC_BLOCK, 0, s>>>(sc + base, len, p.c, p.nwin, p.nb, cursor, sorted, p.chunk);
        LAUNCH_CHECK();
        /* the chunk's buckets in pieces of 2^piece_log entries (dev_algo.h) */
        k_msm_pieces_count<<<grid_for(ncnt), CZC_BLOCK, 0, s>>>(pc, qc, cnt, p.nwin, p.nb, p.piece_log);
        LAUNCH_CHECK();
        k_msm_scan<<<p.nwin, CZ_MSM_SCAN_THREADS, 0, s>>>(pc, NULL, p.nb);
        LAUNCH_CHECK();
        k_msm_scan<<<p.nwin, CZ_MSM_SCAN_THREADS, 0, s>>>(qc, NULL, p.nb);
        LAUNCH_CHECK();
        k_msm_piece<<<grid_for((uint64_t)p.nwin * p.pmax), CZC_BLOCK, 0, s>>>(buckets, partial, sorted, cnt, pc, qc,
                                                                              bases + base, p, p.chunk);
        LAUNCH_CHECK();
        k_msm_merge<<<grid_for(nbk), CZC_BLOCK, 0, s>>>(buckets, partial, qc, p);
        LAUNCH_CHECK();
    }
    k_msm_reduce<<<grid_for((uint64_t)p.nwin * p.G), CZC_BLOCK, 0, s>>>(grp, buckets, p.nwin, p.nb, p.G);
    LAUNCH_CHECK();
    if ((st = fold(grp, p.G, p.nwin, s, err)) != CZ_OK) goto out;

    h_win = (cz_g1_xyzz *)malloc(p.nwin * sizeof *h_win);
    if (!h_win) {
        st = cz_err(err, CZ_ERR_NOMEM, "cuda msm: out of host memory");
        goto out;
    }
    CZC_TRY(cudaMemcpy2DAsync(h_win, sizeof *h_win, grp, (size_t)p.G * sizeof *grp, sizeof *grp, p.nwin,
                              cudaMemcpyDeviceToHost, s));
    CZC_TRY(cudaMemcpyAsync(&h_ones, part, sizeof h_ones, cudaMemcpyDeviceToHost, s));
    CZC_TRY(cudaStreamSynchronize(s));
    cz_d_msm_combine(&res, h_win, p.nwin, p.c, &h_ones);
    cz_g1_xyzz_to_jac(out, &res);
out:
    /* error path: the queued work may still read h_win / write h_ones */
    if (st != CZ_OK) (void)cudaStreamSynchronize(s);
    cudaFree(buckets);
    cudaFree(cnt);
    cudaFree(cursor);
    cudaFree(pc);
    cudaFree(qc);
    cudaFree(partial);
    cudaFree(sorted);
    cudaFree(grp);
    cudaFree(part);
    free(h_win);
    return st;
}

} /* extern "C" */
