/*
 * cuzk CUDA backend — internal interface between the host code (C:
 * context.c, prove_cuda.c, cuzk_cuda_check.c) and the kernels and their
 * drivers (kernels.cu, compiled by nvcc). Everything takes device
 * pointers and a stream; nothing here locks or selects a device (the
 * context does that).
 *
 * Errors: every CUDA call is wrapped in CZC_TRY, which turns a failure
 * into a cz_status (cudaErrorMemoryAllocation -> CZ_ERR_NOMEM, anything
 * else -> CZ_ERR_INTERNAL), writes "cuda: <call> at file:line: <error>"
 * into the caller's cz_errbuf, and jumps to the function's `out:` label,
 * where everything the function allocated is freed. So a failure never
 * leaks device memory and never aborts the process.
 */
#ifndef CUZK_CUDA_INTERNAL_H
#define CUZK_CUDA_INTERNAL_H

#include "cuzk/curve.h"
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records a failed CUDA call (see above); returns the mapped status. */
cz_status czc_fail(cudaError_t e, const char *file, int line, const char *what, cz_errbuf *err);

#define CZC_TRY(call)                                                              \
    do {                                                                           \
        cudaError_t czc_e_ = (call);                                               \
        if (czc_e_ != cudaSuccess) {                                               \
            st = czc_fail(czc_e_, __FILE__, __LINE__, #call, err);                 \
            goto out;                                                              \
        }                                                                          \
    } while (0)

/* ---- NTT ------------------------------------------------------------------ */
/* Device tables of one domain size: twiddles w^0..w^(n/2) and the
 * two-level power tables (see dev_algo.h) of g = 7 and g^-1 (the public
 * coset transforms) and of s = w_2n and s^-1 (the quotient's coset, as in
 * cz_quotient_h). Kept resident by the context (they depend only on n). */
typedef struct {
    unsigned log_n;
    cz_fr *tw;               /* n/2 + 1 */
    cz_fr *g_lo, *g_hi;      /* 2^16, (n >> 16) + 1 */
    cz_fr *gi_lo, *gi_hi;
    cz_fr *s_lo, *s_hi;      /* the same sizes */
    cz_fr *si_lo, *si_hi;
    cz_fr n_inv, inv_2n;     /* host copies: 1/n, 1/(2n) */
} czc_domain;

/* Device bytes of a domain of size 2^log_n. */
size_t czc_domain_bytes(unsigned log_n);
CZ_WUR cz_status czc_domain_build(czc_domain *d, unsigned log_n, cudaStream_t s, cz_errbuf *err);
void czc_domain_free(czc_domain *d);

enum { CZC_NTT_FWD = 0, CZC_NTT_INV = 1, CZC_NTT_COSET_FWD = 2, CZC_NTT_COSET_INV = 3 };
/* In place on d_x (n elements, Montgomery, natural order): the transforms
 * of cuzk/ntt.h. Asynchronous on s. */
CZ_WUR cz_status czc_ntt(cz_fr *d_x, const czc_domain *d, int kind, cudaStream_t s, cz_errbuf *err);
/* Row check, asynchronous on s: *d_bad (device) receives the first i < n
 * with a_i·b_i != c_i, or UINT64_MAX when every row holds. */
CZ_WUR cz_status czc_check_rows(const cz_fr *d_a, const cz_fr *d_b, const cz_fr *d_c, uint64_t n,
                                uint64_t *d_bad, cudaStream_t s, cz_errbuf *err);
/* The Groth16 quotient of cuzk/ntt.h (cz_quotient_h) on device buffers:
 * d_a receives H's coefficients, d_b and d_c are clobbered. Asynchronous. */
CZ_WUR cz_status czc_quotient(cz_fr *d_a, cz_fr *d_b, cz_fr *d_c, const czc_domain *d, cudaStream_t s,
                              cz_errbuf *err);

/* ---- scalars ------------------------------------------------------------------ */
/* d_out[i] = canonical(d_in[i]) for i < n; d_out may equal d_in. Async. */
CZ_WUR cz_status czc_scalars_from_mont(cz_scalar *d_out, const cz_fr *d_in, uint64_t n, cudaStream_t s,
                                       cz_errbuf *err);
/* Density compaction (cz_d_gather_density) of nsrc scalars. Async. */
CZ_WUR cz_status czc_gather(cz_scalar *d_dst, const cz_scalar *d_src, uint64_t nsrc, const uint64_t *d_bitmap,
                            const uint32_t *d_prefix, cudaStream_t s, cz_errbuf *err);

/* ---- MSM (G1) --------------------------------------------------------------------- */
typedef struct {
    unsigned window;     /* 0: cz_d_msm_window(n); else 1..CZ_MSM_WINDOW_MAX (20) */
    unsigned chunk_log;  /* points per sorting pass = 2^chunk_log (0: 24; see dev_launch.h) */
} czc_msm_cfg;

/* Device bytes czc_msm_g1 allocates for n points (an upper bound). */
size_t czc_msm_g1_scratch_bytes(uint64_t n, const czc_msm_cfg *cfg);
/* out = sum scalars[i]·bases[i] (device arrays; scalars canonical < 2^255,
 * bases affine Montgomery, (0,0) allowed). Allocates its scratch, frees it
 * on every path, synchronises s. */
CZ_WUR cz_status czc_msm_g1(cz_g1_jac *out, const cz_g1_affine *d_bases, const cz_scalar *d_scalars, uint64_t n,
                            const czc_msm_cfg *cfg, cudaStream_t s, cz_errbuf *err);

/* ---- device self-checks ------------------------------------------------------------ */
/* Compares __umul64hi, __popcll, __brevll with their host emulations
 * (dev_intrin.h) on n value pairs (edge values first, then pseudo-random
 * from seed) on the device; *mismatches receives the count (0 expected).
 * Synchronises s. */
CZ_WUR cz_status czc_check_intrin(uint64_t n, uint64_t seed, uint64_t *mismatches, cudaStream_t s,
                                  cz_errbuf *err);

/* cz_d_mont_mul32 (dev_mul32.h, the device's PTX carry chains) vs the
 * 64-bit CIOS for Fp and Fr on n pseudo-random pairs; *mismatches
 * receives the count (0 expected). Synchronises s. */
CZ_WUR cz_status czc_check_mul32(uint64_t n, uint64_t seed, uint64_t *mismatches, cudaStream_t s, cz_errbuf *err);
/* Device time (*ms) of nthreads threads doing iters dependent Fp
 * multiplications each; variant 0: 64-bit CIOS, 1: 32-bit carry chains. */
CZ_WUR cz_status czc_bench_mul(int variant, uint64_t nthreads, unsigned iters, double *ms, cudaStream_t s,
                               cz_errbuf *err);

/* ---- benchmark helpers ---------------------------------------------------------------- */
/* d_out[i] = d_src[i mod k] for i < n (bases for timing runs). Async. */
CZ_WUR cz_status czc_tile_bases(cz_g1_affine *d_out, uint64_t n, const cz_g1_affine *d_src, uint64_t k,
                                cudaStream_t s, cz_errbuf *err);
/* d_x[i] = pseudo-random reduced Fr elements from a counter hash (seed). */
CZ_WUR cz_status czc_fill_random_fr(cz_fr *d_x, uint64_t n, uint64_t seed, cudaStream_t s, cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_CUDA_INTERNAL_H */
