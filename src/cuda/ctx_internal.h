/*
 * cuzk CUDA backend — the context's fields and the helpers the host-side
 * files (context.c, prove_cuda.c, cuzk_cuda_check.c) share.
 */
#ifndef CUZK_CUDA_CTX_INTERNAL_H
#define CUZK_CUDA_CTX_INTERNAL_H

#include "cuzk/cuda.h"
#include "cuda/cuda_internal.h"
#include <pthread.h>
#include <stdatomic.h>

struct cz_cuda_ctx {
    int device;
    char name[320];
    size_t total_mem, reserve;
    /* Locks, in the order they may be taken (never the other way):
     * lock, then mem_lock or copy_lock (both leaves). A proof's uploads
     * take only copy_lock, so they run while another proof holds lock. */
    pthread_mutex_t lock;          /* the device region: kernels, resident parameters */
    pthread_mutex_t copy_lock;     /* pin, pin_ev, pin_next (czc_upload) */
    pthread_mutex_t mem_lock;      /* admission: a memory check and the allocations it admits; alloc_* */
    cudaStream_t s_comp, s_copy;   /* kernels; host->device uploads */
    void *pin[2];                  /* pinned staging buffers (double buffering) */
    cudaEvent_t pin_ev[2];         /* last copy out of pin[k] */
    size_t pin_bytes;
    unsigned pin_next;
    /* resident parameters (see cuzk/cuda.h): (params, params_gen), under lock */
    const cz_groth16_params *params;
    uint64_t params_gen;
    /* the set whose arrays are allocated (from their allocation, while the
     * upload is still in flight, until they are freed), under mem_lock */
    const cz_groth16_params *alloc_params;
    uint64_t alloc_gen;
    cz_g1_affine *d_h, *d_l, *d_a, *d_b1;
    czc_domain dom;                /* domain of the resident parameters (dom.tw NULL: none) */
    _Atomic bool broken;           /* a sticky CUDA error happened (broken_msg written first) */
    char broken_msg[320];
};

/* Whether (p, gen) is the resident set (under ctx->lock, or on a context
 * only this thread sees). Pure: no CUDA call (host-testable). */
static inline bool czc_is_resident(const cz_cuda_ctx *ctx, const cz_groth16_params *p, uint64_t gen)
{
    return p && ctx->params == p && ctx->params_gen == gen;
}

/* Device-memory admission. cudaMemGetInfo sees allocations only, so a
 * check and the allocations it admits are one step under mem_lock (two
 * proofs are never admitted against the same free bytes), and a proof
 * asks whether the parameters' arrays are allocated, not whether they are
 * resident: while their upload is in flight they are already out of the
 * free bytes and must not be counted again (czc_params_allocated, under
 * mem_lock). */
static inline bool czc_params_allocated(const cz_cuda_ctx *ctx, const cz_groth16_params *p, uint64_t gen)
{
    return p && ctx->alloc_params == p && ctx->alloc_gen == gen;
}

/* CZ_ERR_UNSUPPORTED (with the earlier error) when the context is broken;
 * takes no lock. */
CZ_WUR cz_status czc_check_usable(cz_cuda_ctx *ctx, cz_errbuf *err);

/* Locks the context and selects its device; CZ_ERR_UNSUPPORTED when the
 * context is broken. On success the caller must call czc_leave. */
CZ_WUR cz_status czc_enter(cz_cuda_ctx *ctx, cz_errbuf *err);
/* Classifies st (a CZ_ERR_INTERNAL from CUDA is probed: if the device
 * stays in error the context becomes broken), unlocks; returns st. */
cz_status czc_leave(cz_cuda_ctx *ctx, cz_status st, cz_errbuf *err);
/* What czc_leave does with st, for a CUDA error outside enter/leave (a
 * proof's upload phase): takes ctx->lock to probe for a sticky error.
 * Returns st. */
cz_status czc_note_failure(cz_cuda_ctx *ctx, cz_status st, cz_errbuf *err);
/* Host -> device copy of bytes through the pinned staging buffers on
 * stream s (the memcpy into one buffer overlaps the DMA out of the other);
 * pool (may be NULL) parallelises the memcpy. src is read before the call
 * returns (it may be reused at once); the device copy completes in s's
 * order. Takes copy_lock itself: callable inside enter/leave or, with the
 * device selected (cudaSetDevice), outside them. */
CZ_WUR cz_status czc_upload(cz_cuda_ctx *ctx, void *d_dst, const void *src, size_t bytes, cudaStream_t s,
                            cz_pool *pool, cz_errbuf *err);
/* Free device memory, minus nothing (cudaMemGetInfo). */
CZ_WUR cz_status czc_mem_free(size_t *free_bytes, cz_errbuf *err);

#endif /* CUZK_CUDA_CTX_INTERNAL_H */
