/*
 * cuzk CUDA backend — the context's fields and the helpers the host-side
 * files (context.c, prove_cuda.c, cuzk_cuda_check.c) share.
 */
#ifndef CUZK_CUDA_CTX_INTERNAL_H
#define CUZK_CUDA_CTX_INTERNAL_H

#include "cuzk/cuda.h"
#include "cuda/cuda_internal.h"
#include <pthread.h>

struct cz_cuda_ctx {
    int device;
    char name[320];
    size_t total_mem, reserve;
    pthread_mutex_t lock;          /* the device region of every call */
    cudaStream_t s_comp, s_copy;   /* kernels; host->device uploads */
    cudaEvent_t ev_abc, ev_z;      /* upload milestones the compute stream waits on */
    void *pin[2];                  /* pinned staging buffers (double buffering) */
    cudaEvent_t pin_ev[2];         /* last copy out of pin[k] */
    size_t pin_bytes;
    unsigned pin_next;
    /* resident parameters (see cuzk/cuda.h): (params, params_gen) */
    const cz_groth16_params *params;
    uint64_t params_gen;
    cz_g1_affine *d_h, *d_l, *d_a, *d_b1;
    czc_domain dom;                /* domain of the resident parameters (dom.tw NULL: none) */
    bool broken;                   /* a sticky CUDA error happened */
    char broken_msg[320];
};

/* Whether (p, gen) is the resident set (under ctx->lock, or on a
 * context only this thread sees). Pure: no CUDA call (host-testable). */
static inline bool czc_is_resident(const cz_cuda_ctx *ctx, const cz_groth16_params *p, uint64_t gen)
{
    return p && ctx->params == p && ctx->params_gen == gen;
}

/* Locks the context and selects its device; CZ_ERR_UNSUPPORTED when the
 * context is broken. On success the caller must call czc_leave. */
CZ_WUR cz_status czc_enter(cz_cuda_ctx *ctx, cz_errbuf *err);
/* Classifies st (a CZ_ERR_INTERNAL from CUDA is probed: if the device
 * stays in error the context becomes broken), unlocks; returns st. */
cz_status czc_leave(cz_cuda_ctx *ctx, cz_status st, cz_errbuf *err);
/* Host -> device copy of bytes through the pinned staging buffers on
 * stream s (the memcpy into one buffer overlaps the DMA out of the other);
 * pool (may be NULL) parallelises the memcpy. Asynchronous: src may be
 * reused once s has passed this point. Called inside enter/leave. */
CZ_WUR cz_status czc_upload(cz_cuda_ctx *ctx, void *d_dst, const void *src, size_t bytes, cudaStream_t s,
                            cz_pool *pool, cz_errbuf *err);
/* Free device memory, minus nothing (cudaMemGetInfo). */
CZ_WUR cz_status czc_mem_free(size_t *free_bytes, cz_errbuf *err);

#endif /* CUZK_CUDA_CTX_INTERNAL_H */
