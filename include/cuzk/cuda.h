/*
 * cuzk — CUDA backend (optional; built when nvcc is found, see
 * src/cuda/README.md). Link target cz_cuda; the compile definition
 * CUZK_HAVE_CUDA=1 is set for everything that links it.
 *
 * A context owns one device: two streams (compute, copy), two pinned
 * staging buffers for host->device uploads (double buffering), the
 * resident parameters (the G1 queries h, l, a, b_g1 of one
 * cz_groth16_params, uploaded once and kept across proofs) and the NTT
 * tables of its domain size. Everything a proof allocates on the device
 * beyond that is freed before the proof returns, so device memory is flat
 * over any number of proofs.
 *
 * Threads: a context may be shared by any number of threads; one mutex
 * per context covers only the device region of a call (uploads, kernels,
 * read-back). It is always released, on every error path.
 *
 * Errors: every CUDA call is checked; a failure returns a cz_status
 * (CZ_ERR_NOMEM for device out-of-memory, CZ_ERR_BUDGET when a size check
 * says the work cannot fit before anything is allocated, CZ_ERR_INTERNAL
 * for other CUDA errors) with "file:line: call: CUDA message" in err, and
 * fails only the call. After a sticky error (the device is unusable until
 * the process restarts, e.g. an illegal address) the context marks itself
 * broken and every later call returns CZ_ERR_UNSUPPORTED at once, so the
 * caller can fall back to the CPU prover.
 */
#ifndef CUZK_CUDA_H
#define CUZK_CUDA_H

#include "cuzk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_cuda_ctx cz_cuda_ctx;

typedef struct {
    int device;              /* CUDA device ordinal */
    size_t staging_bytes;    /* each of the two pinned staging buffers (0: 64 MiB) */
    size_t reserve_bytes;    /* device memory left free by the size checks (0: 512 MiB) */
} cz_cuda_opts;

/* Number of CUDA devices usable by this process (0 without a driver or
 * device; never fails). */
int cz_cuda_device_count(void);

/* Opens device opts->device (opts may be NULL: device 0, defaults).
 * CZ_ERR_UNSUPPORTED without a usable device; err says why. */
CZ_WUR cz_status cz_cuda_ctx_create(cz_cuda_ctx **out, const cz_cuda_opts *opts, cz_errbuf *err);
/* Frees everything the context holds on the device and the host. */
void cz_cuda_ctx_free(cz_cuda_ctx *ctx);
/* "NVIDIA H200 (sm_90, 139.8 GiB)"-style description. */
const char *cz_cuda_ctx_name(const cz_cuda_ctx *ctx);
/* Free and total device memory now. */
CZ_WUR cz_status cz_cuda_mem_info(cz_cuda_ctx *ctx, size_t *free_bytes, size_t *total_bytes);

/* Device bytes the resident form of params takes (G1 queries + NTT tables). */
size_t cz_cuda_params_device_bytes(const cz_groth16_params *params);
/* Device bytes one proof needs beyond the resident parameters (a, b, c,
 * witness, gathered scalars, MSM scratch). */
size_t cz_cuda_proof_device_bytes(const cz_groth16_params *params, const cz_pce *pce);
/* The two sizes above from a recorded circuit alone, before its
 * parameters exist (what the engine's estimate needs): *resident =
 * cz_cuda_params_device_bytes, *proof = cz_cuda_proof_device_bytes of the
 * parameters the circuit will have. */
void cz_cuda_device_bytes_for(const cz_pce *pce, uint64_t *resident, uint64_t *proof);

/* Resident parameters are recognised by (pointer, generation). A pointer
 * alone is not an identity: a set freed and a new one allocated at the
 * same address would silently reuse the old SRS. A caller that frees and
 * reloads parameter sets (the engine back-end) stamps each loaded set with
 * a fresh generation (cz_cuda_params_generation: a process-wide counter,
 * never 0) and also releases it from every context before freeing it
 * (cz_cuda_params_release_set). Generation 0 (cz_cuda_params_upload) is
 * the plain pointer identity, for callers whose sets live as long as the
 * context (the device check). */
uint64_t cz_cuda_params_generation(void);
/* Makes (params, generation) resident (no-op when it already is; replaces
 * another resident set). params must stay alive and unchanged while
 * resident. CZ_ERR_BUDGET (with the sizes in err) when it cannot fit. */
CZ_WUR cz_status cz_cuda_params_upload_gen(cz_cuda_ctx *ctx, const cz_groth16_params *params, uint64_t generation,
                                           cz_errbuf *err);
/* = cz_cuda_params_upload_gen(ctx, params, 0, err). */
CZ_WUR cz_status cz_cuda_params_upload(cz_cuda_ctx *ctx, const cz_groth16_params *params, cz_errbuf *err);
/* Whether (params, generation) is the resident set now. */
bool cz_cuda_params_resident(cz_cuda_ctx *ctx, const cz_groth16_params *params, uint64_t generation);
/* Drops the resident parameters and NTT tables. */
void cz_cuda_params_release(cz_cuda_ctx *ctx);
/* Drops them only if (params, generation) is the resident set (what an
 * unload calls on every context before freeing params). */
void cz_cuda_params_release_set(cz_cuda_ctx *ctx, const cz_groth16_params *params, uint64_t generation);

/* GPU prove_start: the contract of cz_groth16_prove_start (cuzk/groth16.h)
 * — a/b/c are freed on every return, the result is finished by the
 * unchanged cz_groth16_prove_finish — with the quotient and the H, L, A,
 * B_G1 MSMs on the device and the B_G2 MSM on bg (CPU) while the device
 * works. Uploads params first if they are not resident. pool converts the
 * witness for B_G2. CZ_ERR_UNSATISFIED when a row of a·b = c fails. */
CZ_WUR cz_status cz_cuda_prove_start(cz_groth16_pending **out, cz_cuda_ctx *ctx, const cz_groth16_params *params,
                                     const cz_pce *pce, cz_groth16_input *in, cz_pool *pool, cz_pool *bg,
                                     cz_errbuf *err);

/* A lock the caller holds around the device region of a proof (the
 * engine's device lock: cuzk/engine.h backend_locks_device): lock is
 * called at most once, right before the parameter upload and the proof's
 * kernels, and then unlock once after them, on every path (errors
 * included). Outside it: the witness conversion, the B_G2 start, the
 * density prefix sums and this proof's own uploads (into its own device
 * buffers, on the copy stream), so they overlap another proof's kernels;
 * a proof that fails before its kernels (an upload or allocation error, a
 * size check) never calls lock. Taken outside the context's own lock
 * (lock order: caller's, then the context's). */
typedef struct {
    void (*lock)(void *arg);
    void (*unlock)(void *arg);
    void *arg;
} cz_cuda_region_hooks;

/* cz_cuda_prove_start with the parameters identified by (params,
 * generation) (see cz_cuda_params_generation) and optional region hooks
 * (NULL: none). */
CZ_WUR cz_status cz_cuda_prove_start_ex(cz_groth16_pending **out, cz_cuda_ctx *ctx, const cz_groth16_params *params,
                                        uint64_t generation, const cz_pce *pce, cz_groth16_input *in,
                                        cz_pool *pool, cz_pool *bg, const cz_cuda_region_hooks *hooks,
                                        cz_errbuf *err);

/* ---- single kernels on host buffers (device check, benchmarks) ------------------ */
typedef enum { CZ_CUDA_NTT_FWD = 0, CZ_CUDA_NTT_INV, CZ_CUDA_NTT_COSET_FWD, CZ_CUDA_NTT_COSET_INV } cz_cuda_ntt_kind;
/* In place on x[0 .. 2^log_n), same results as the cz_ntt_* functions. */
CZ_WUR cz_status cz_cuda_ntt(cz_cuda_ctx *ctx, cz_fr *x, unsigned log_n, cz_cuda_ntt_kind kind, cz_errbuf *err);
/* cz_quotient_h on the device (a receives H, b and c are clobbered). */
CZ_WUR cz_status cz_cuda_quotient_h(cz_cuda_ctx *ctx, cz_fr *a, cz_fr *b, cz_fr *c, unsigned log_n,
                                    cz_errbuf *err);
/* cz_msm_g1 on the device: scalars must be < r (canonical Fr values);
 * window 0 = automatic. */
CZ_WUR cz_status cz_cuda_msm_g1(cz_cuda_ctx *ctx, cz_g1_jac *out, const cz_g1_affine *bases,
                                const cz_scalar *scalars, size_t n, unsigned window, cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_CUDA_H */
