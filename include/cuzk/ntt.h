/*
 * cuzk — number-theoretic transforms over Fr and the Groth16 quotient.
 *
 * Fr has 2-adicity 32; a domain of size n = 2^log_n (0 <= log_n <= 28)
 * uses w = cz_fr_root_of_unity(log_n), a primitive n-th root of unity
 * (w_k = 7^((r-1)/2^k)). The coset generator is g = 7 (a non-residue, so
 * the coset g·<w> is disjoint from <w> for every n).
 *
 *   forward:         X[k] = sum_i x[i] w^(ik)            (evaluations on <w>)
 *   inverse:         x[i] = (1/n) sum_k X[k] w^(-ik)
 *   coset forward:   X[k] = sum_i x[i] (g w^k)^i          (evaluations on g<w>)
 *   coset inverse:   the inverse of coset forward.
 *
 * Every transform works in place on n elements (Montgomery form, reduced)
 * in natural order in and out, and is multi-threaded through the pool
 * argument (NULL = serial on the calling thread; results are identical for
 * every pool). The caller participates in the pool's work.
 *
 * Timing: constant time in the values (the access pattern and operation
 * count depend only on n and the pool); witness data is public anyway.
 *
 * Domain memory: a domain owns its twiddle tables — the powers w^0..w^(n/2)
 * (16 bytes per point: 2 GiB at 2^27, 4 GiB at 2^28), compact copies of
 * every 8th power etc. for the cache-blocked passes (~2.3 bytes per
 * point), a fixed table of per-stage roots for the cache-resident stages
 * (<= 256 KiB each way), and square-root-sized coset tables;
 * cz_ntt_domain_memory() gives the total.
 * A domain is immutable after creation and may be shared by any number
 * of threads.
 */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_NTT_MAX_LOG_N 28

typedef struct cz_ntt_domain cz_ntt_domain;

/* Builds the tables for n = 2^log_n (the pool speeds up the O(n) table
 * build; NULL = serial). CZ_ERR_INVALID_ARG when log_n > CZ_NTT_MAX_LOG_N,
 * CZ_ERR_NOMEM when the tables do not fit. */
CZ_WUR cz_status cz_ntt_domain_create(cz_ntt_domain **out, unsigned log_n, cz_pool *pool);

/* Vector butterflies: AVX-512 IFMA ones on x86-64 CPUs with AVX-512F +
 * IFMA, otherwise AVX2 + MULX ones where the process measures that they
 * beat the scalar ones (the first domain created times both, ~2 ms;
 * CUZK_NTT_LANES=avx2|none decides by hand). On by default where
 * available; results are identical either way.
 * cz_ntt_set_simd(false) forces the scalar kernels (tests, comparisons);
 * it is process-wide and not thread safe: call it with no transform
 * running. */
bool cz_ntt_simd_available(void);
bool cz_ntt_simd_enabled(void);
void cz_ntt_set_simd(bool on);
void cz_ntt_domain_free(cz_ntt_domain *d);
unsigned cz_ntt_domain_log_n(const cz_ntt_domain *d);
size_t cz_ntt_domain_size(const cz_ntt_domain *d);
/* Bytes a domain of size 2^log_n holds (for memory budgets), without
 * building it. */
size_t cz_ntt_domain_memory(unsigned log_n);

/* In-place transforms of x[0..n) (n = domain size); see the definitions
 * above. x must not be shared with another running transform. */
void cz_ntt_forward(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x);
void cz_ntt_inverse(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x);
void cz_ntt_coset_forward(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x);
void cz_ntt_coset_inverse(cz_pool *pool, const cz_ntt_domain *d, cz_fr *x);

/*
 * Groth16 quotient (docs/design.md §2.6). With m = domain size, a, b, c are the
 * evaluations on <w> (natural order, zero-padded by the caller to m
 * elements each, three distinct buffers) of polynomials A, B, C with
 * A·B − C divisible by Z = X^m − 1. Computes H = (A·B − C)/Z with 6
 * transforms of size m, on the coset s·<w> where s = w_2m (s^m = −1):
 *   iNTT a, b, c; coset NTT of A and B; a·b pointwise; coset iNTT, which
 *   gives D = C − 2H (see ntt.c); H = (C − D)/2.
 * On return a[0..m−1) holds the coefficients h_0..h_(m−2) of H in natural
 * order (a[m−1] is H's degree-(m−1) coefficient: 0 when A·B − C really is
 * divisible by Z with deg A, deg B <= m−1, deg C <= m−1). b and c are
 * clobbered (scratch). If A·B − C is not divisible by Z, a receives no
 * meaningful polynomial (callers check the rows first: the Groth16 prover
 * refuses an unsatisfied witness before it gets here).
 */
void cz_quotient_h(cz_pool *pool, const cz_ntt_domain *d, cz_fr *a, cz_fr *b, cz_fr *c);
/* The quotient in snarkjs's form (its H query is in the Lagrange basis of
 * the same coset s·<w>, s = w_2m, where Z = −2): a, b, c as above; on
 * return a[i] = (A·B − C)(s·w^i) for i < m, natural order. b and c are
 * clobbered. Six transforms of size m, no bit-reversal pass. */
void cz_quotient_odd_coset(cz_pool *pool, const cz_ntt_domain *d, cz_fr *a, cz_fr *b, cz_fr *c);

/* a[i] = a[i]·b[i] for i < n, the Montgomery product of cz_fr_mul (the
 * same results, canonical inputs), on the vector kernels the NTT runs
 * (eight IFMA lanes, or the AVX2 + MULX block where it measured faster;
 * cz_ntt_simd_enabled) in runs of eight, scalar otherwise and for the
 * tail. Here because it shares the NTT's kernel choice. a and b must not
 * overlap unless equal. */
void cz_fr_pointwise_mul(cz_fr *a, const cz_fr *b, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_NTT_H */
