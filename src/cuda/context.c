/*
 * cuzk CUDA backend — device context: device selection, error mapping,
 * the per-device lock, pinned staging uploads, resident parameters and the
 * single-kernel entry points (cuzk/cuda.h).
 *
 * Lock discipline: every public entry takes ctx->lock through czc_enter
 * and releases it through czc_leave on every path (one `out:` label per
 * function), so an error never leaves the lock held. Nothing that can
 * block on the CPU for long (B_G2, witness conversion) runs under it.
 */
#include "cuda/ctx_internal.h"
#include "cuzk/ntt.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB(x) ((double)(x) / (1024.0 * 1024.0 * 1024.0))

cz_status czc_fail(cudaError_t e, const char *file, int line, const char *what, cz_errbuf *err)
{
    cz_status st = e == cudaErrorMemoryAllocation ? CZ_ERR_NOMEM : CZ_ERR_INTERNAL;
    const char *base = strrchr(file, '/');
    (void)cudaGetLastError(); /* clear a non-sticky error so the next call starts clean */
    return cz_err(err, st, "cuda: %s at %s:%d: %s (%s)", what, base ? base + 1 : file, line, cudaGetErrorName(e),
                  cudaGetErrorString(e));
}

int cz_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

cz_status czc_mem_free(size_t *free_bytes, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    size_t total;
    CZC_TRY(cudaMemGetInfo(free_bytes, &total));
out:
    return st;
}

cz_status czc_check_usable(cz_cuda_ctx *ctx, cz_errbuf *err)
{
    if (!atomic_load(&ctx->broken)) return CZ_OK;
    return cz_err(err, CZ_ERR_UNSUPPORTED, "cuda: device %d unusable after an earlier error: %s", ctx->device,
                  ctx->broken_msg);
}

cz_status czc_enter(cz_cuda_ctx *ctx, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    pthread_mutex_lock(&ctx->lock);
    if ((st = czc_check_usable(ctx, err)) != CZ_OK) {
        pthread_mutex_unlock(&ctx->lock);
        return st;
    }
    CZC_TRY(cudaSetDevice(ctx->device));
    return CZ_OK;
out:
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

/* Under ctx->lock, after a CZ_ERR_INTERNAL. Sticky errors (illegal
 * address, launch failure) make every later call fail too: probe twice; if
 * the device stays in error, stop using it (the engine falls back to the
 * CPU prover). */
static void probe_sticky(cz_cuda_ctx *ctx, const cz_errbuf *err)
{
    (void)cudaGetLastError();
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess && !atomic_load(&ctx->broken)) {
        /* the message first: czc_check_usable reads it without the lock */
        snprintf(ctx->broken_msg, sizeof ctx->broken_msg, "%s", err ? err->msg : cudaGetErrorString(e));
        atomic_store(&ctx->broken, true);
    }
}

cz_status czc_leave(cz_cuda_ctx *ctx, cz_status st, cz_errbuf *err)
{
    if (st == CZ_ERR_INTERNAL) probe_sticky(ctx, err);
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

cz_status czc_note_failure(cz_cuda_ctx *ctx, cz_status st, cz_errbuf *err)
{
    if (st != CZ_ERR_INTERNAL) return st;
    pthread_mutex_lock(&ctx->lock);
    probe_sticky(ctx, err);
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

/* Under ctx->lock. */
static void set_resident(cz_cuda_ctx *ctx, const cz_groth16_params *p, uint64_t gen)
{
    ctx->params = p;
    ctx->params_gen = gen;
}

/* Under ctx->lock. The arrays go and their set is forgotten in one step
 * under mem_lock, so a proof's admission never sees them freed but still
 * marked allocated (it would skip their bytes) or the reverse. */
static void release_params_locked(cz_cuda_ctx *ctx)
{
    pthread_mutex_lock(&ctx->mem_lock);
    cudaFree(ctx->d_h);
    cudaFree(ctx->d_l);
    cudaFree(ctx->d_a);
    cudaFree(ctx->d_b1);
    ctx->d_h = ctx->d_l = ctx->d_a = ctx->d_b1 = NULL;
    if (ctx->dom.tw) czc_domain_free(&ctx->dom);
    ctx->alloc_params = NULL;
    ctx->alloc_gen = 0;
    pthread_mutex_unlock(&ctx->mem_lock);
    set_resident(ctx, NULL, 0);
}

cz_status cz_cuda_ctx_create(cz_cuda_ctx **out, const cz_cuda_opts *opts, cz_errbuf *err)
{
    *out = NULL;
    cz_status st = CZ_OK;
    int dev = opts ? opts->device : 0, n = cz_cuda_device_count();
    if (n <= 0) return cz_err(err, CZ_ERR_UNSUPPORTED, "cuda: no CUDA device (driver missing or no GPU)");
    if (dev < 0 || dev >= n)
        return cz_err(err, CZ_ERR_UNSUPPORTED, "cuda: device %d requested, %d device(s) present", dev, n);
    cz_cuda_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return cz_err(err, CZ_ERR_NOMEM, "cuda: out of host memory");
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->copy_lock, NULL);
    pthread_mutex_init(&ctx->mem_lock, NULL);
    ctx->device = dev;
    ctx->pin_bytes = opts && opts->staging_bytes ? opts->staging_bytes : (size_t)64 << 20;
    ctx->reserve = opts && opts->reserve_bytes ? opts->reserve_bytes : (size_t)512 << 20;
    struct cudaDeviceProp prop;
    CZC_TRY(cudaSetDevice(dev));
    CZC_TRY(cudaGetDeviceProperties(&prop, dev));
    ctx->total_mem = prop.totalGlobalMem;
    if (prop.major < 7)
        st = cz_err(err, CZ_ERR_UNSUPPORTED, "cuda: %s is sm_%d%d; this build targets sm_80 and sm_90", prop.name,
                    prop.major, prop.minor);
    if (st != CZ_OK) goto out;
    snprintf(ctx->name, sizeof ctx->name, "%s (sm_%d%d, %.1f GiB)", prop.name, prop.major, prop.minor,
             GIB(prop.totalGlobalMem));
    CZC_TRY(cudaStreamCreateWithFlags(&ctx->s_comp, cudaStreamNonBlocking));
    CZC_TRY(cudaStreamCreateWithFlags(&ctx->s_copy, cudaStreamNonBlocking));
    for (int k = 0; k < 2; k++) {
        CZC_TRY(cudaMallocHost(&ctx->pin[k], ctx->pin_bytes));
        CZC_TRY(cudaEventCreateWithFlags(&ctx->pin_ev[k], cudaEventDisableTiming));
    }
    *out = ctx;
    return CZ_OK;
out:
    cz_cuda_ctx_free(ctx);
    return st;
}

void cz_cuda_ctx_free(cz_cuda_ctx *ctx)
{
    if (!ctx) return;
    pthread_mutex_lock(&ctx->lock);
    if (cudaSetDevice(ctx->device) == cudaSuccess) {
        cudaDeviceSynchronize();
        release_params_locked(ctx);
        for (int k = 0; k < 2; k++) {
            if (ctx->pin[k]) cudaFreeHost(ctx->pin[k]);
            if (ctx->pin_ev[k]) cudaEventDestroy(ctx->pin_ev[k]);
        }
        if (ctx->s_comp) cudaStreamDestroy(ctx->s_comp);
        if (ctx->s_copy) cudaStreamDestroy(ctx->s_copy);
    }
    (void)cudaGetLastError();
    pthread_mutex_unlock(&ctx->lock);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->copy_lock);
    pthread_mutex_destroy(&ctx->mem_lock);
    free(ctx);
}

const char *cz_cuda_ctx_name(const cz_cuda_ctx *ctx) { return ctx->name; }

cz_status cz_cuda_mem_info(cz_cuda_ctx *ctx, size_t *free_bytes, size_t *total_bytes)
{
    cz_errbuf e;
    cz_status st = czc_enter(ctx, &e);
    if (st != CZ_OK) return st;
    st = CZ_OK;
    cz_errbuf *err = &e;
    CZC_TRY(cudaMemGetInfo(free_bytes, total_bytes));
out:
    return czc_leave(ctx, st, err);
}

/* ---- staged uploads ---------------------------------------------------------------- */
typedef struct {
    uint8_t *dst;
    const uint8_t *src;
} copy_job;

static void copy_range(void *arg, size_t lo, size_t hi)
{
    copy_job *j = arg;
    memcpy(j->dst + lo, j->src + lo, hi - lo);
}

cz_status czc_upload(cz_cuda_ctx *ctx, void *d_dst, const void *src, size_t bytes, cudaStream_t s, cz_pool *pool,
                     cz_errbuf *err)
{
    cz_status st = CZ_OK;
    pthread_mutex_lock(&ctx->copy_lock);
    for (size_t off = 0; off < bytes; off += ctx->pin_bytes) {
        size_t len = bytes - off < ctx->pin_bytes ? bytes - off : ctx->pin_bytes;
        unsigned k = ctx->pin_next;
        ctx->pin_next ^= 1;
        CZC_TRY(cudaEventSynchronize(ctx->pin_ev[k])); /* the DMA out of pin[k] has finished */
        copy_job j = { ctx->pin[k], (const uint8_t *)src + off };
        cz_pool_parallel_range(pool, 0, len, (size_t)1 << 20, copy_range, &j);
        CZC_TRY(cudaMemcpyAsync((uint8_t *)d_dst + off, ctx->pin[k], len, cudaMemcpyHostToDevice, s));
        CZC_TRY(cudaEventRecord(ctx->pin_ev[k], s));
    }
out:
    pthread_mutex_unlock(&ctx->copy_lock);
    return st;
}

/* ---- resident parameters -------------------------------------------------------------- */
static unsigned log2_exact(size_t m)
{
    unsigned l = 0;
    while (((size_t)1 << l) < m) l++;
    return l;
}

size_t cz_cuda_params_device_bytes(const cz_groth16_params *p)
{
    size_t pts = p->n_h + p->n_l + p->n_a + p->n_b;
    return pts * sizeof(cz_g1_affine) + czc_domain_bytes(log2_exact(cz_groth16_params_domain(p)));
}

uint64_t cz_cuda_params_generation(void)
{
    static _Atomic uint64_t next = 1;
    return atomic_fetch_add(&next, 1);
}

bool cz_cuda_params_resident(cz_cuda_ctx *ctx, const cz_groth16_params *p, uint64_t gen)
{
    pthread_mutex_lock(&ctx->lock);
    bool r = czc_is_resident(ctx, p, gen);
    pthread_mutex_unlock(&ctx->lock);
    return r;
}

cz_status cz_cuda_params_upload(cz_cuda_ctx *ctx, const cz_groth16_params *p, cz_errbuf *err)
{
    return cz_cuda_params_upload_gen(ctx, p, 0, err);
}

cz_status cz_cuda_params_upload_gen(cz_cuda_ctx *ctx, const cz_groth16_params *p, uint64_t gen, cz_errbuf *err)
{
    cz_status st = czc_enter(ctx, err);
    if (st != CZ_OK) return st;
    if (czc_is_resident(ctx, p, gen)) return czc_leave(ctx, CZ_OK, err);
    release_params_locked(ctx);
    size_t m = cz_groth16_params_domain(p), need = cz_cuda_params_device_bytes(p), avail;
    bool mem_locked = false;
    unsigned logm = log2_exact(m);
    if (((size_t)1 << logm) != m || logm > CZ_NTT_MAX_LOG_N) {
        st = cz_err(err, CZ_ERR_INVALID_ARG, "cuda: parameter domain %zu is not a power of two <= 2^%u", m,
                    CZ_NTT_MAX_LOG_N);
        goto out;
    }
    struct {
        cz_g1_affine **dst;
        const cz_g1_affine *src;
        size_t n;
    } q[4] = { { &ctx->d_h, p->h, p->n_h }, { &ctx->d_l, p->l, p->n_l }, { &ctx->d_a, p->a, p->n_a },
               { &ctx->d_b1, p->b_g1, p->n_b } };
    /* admission (ctx_internal.h): the check, every array and the NTT
     * tables in one step; the set counts as allocated from then on */
    pthread_mutex_lock(&ctx->mem_lock);
    mem_locked = true;
    if ((st = czc_mem_free(&avail, err)) != CZ_OK) goto out;
    if (avail < need + ctx->reserve) {
        st = cz_err(err, CZ_ERR_BUDGET,
                    "cuda: parameters need %.2f GiB on %s, %.2f GiB free (%.2f GiB kept in reserve)", GIB(need),
                    ctx->name, GIB(avail), GIB(ctx->reserve));
        goto out;
    }
    for (int k = 0; k < 4; k++)
        CZC_TRY(cudaMalloc((void **)q[k].dst, (q[k].n ? q[k].n : 1) * sizeof(cz_g1_affine)));
    if ((st = czc_domain_build(&ctx->dom, logm, ctx->s_copy, err)) != CZ_OK) goto out;
    ctx->alloc_params = p;
    ctx->alloc_gen = gen;
    pthread_mutex_unlock(&ctx->mem_lock);
    mem_locked = false;
    for (int k = 0; k < 4; k++)
        if ((st = czc_upload(ctx, *q[k].dst, q[k].src, q[k].n * sizeof(cz_g1_affine), ctx->s_copy, NULL, err)) !=
            CZ_OK)
            goto out;
    CZC_TRY(cudaStreamSynchronize(ctx->s_copy));
    set_resident(ctx, p, gen);
out:
    if (mem_locked) pthread_mutex_unlock(&ctx->mem_lock);
    if (st != CZ_OK) release_params_locked(ctx);
    return czc_leave(ctx, st, err);
}

void cz_cuda_params_release(cz_cuda_ctx *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    if (cudaSetDevice(ctx->device) == cudaSuccess) release_params_locked(ctx);
    (void)cudaGetLastError();
    pthread_mutex_unlock(&ctx->lock);
}

void cz_cuda_params_release_set(cz_cuda_ctx *ctx, const cz_groth16_params *p, uint64_t gen)
{
    pthread_mutex_lock(&ctx->lock);
    if (czc_is_resident(ctx, p, gen)) {
        if (cudaSetDevice(ctx->device) == cudaSuccess) release_params_locked(ctx);
        (void)cudaGetLastError();
        /* forgotten even if the device is gone: the pointer is about to be freed */
        set_resident(ctx, NULL, 0);
    }
    pthread_mutex_unlock(&ctx->lock);
}

/* ---- single kernels on host buffers -------------------------------------------------------- */
cz_status cz_cuda_ntt(cz_cuda_ctx *ctx, cz_fr *x, unsigned log_n, cz_cuda_ntt_kind kind, cz_errbuf *err)
{
    if (log_n > CZ_NTT_MAX_LOG_N) return cz_err(err, CZ_ERR_INVALID_ARG, "cuda ntt: 2^%u too large", log_n);
    cz_status st = czc_enter(ctx, err);
    if (st != CZ_OK) return st;
    size_t n = (size_t)1 << log_n;
    cz_fr *d_x = NULL;
    czc_domain tmp = { 0 };
    const czc_domain *dom = &ctx->dom;
    if (!ctx->dom.tw || ctx->dom.log_n != log_n) {
        if ((st = czc_domain_build(&tmp, log_n, ctx->s_comp, err)) != CZ_OK) goto out;
        dom = &tmp;
    }
    CZC_TRY(cudaMalloc((void **)&d_x, n * sizeof *d_x));
    if ((st = czc_upload(ctx, d_x, x, n * sizeof *x, ctx->s_comp, NULL, err)) != CZ_OK) goto out;
    if ((st = czc_ntt(d_x, dom, (int)kind, ctx->s_comp, err)) != CZ_OK) goto out;
    CZC_TRY(cudaMemcpyAsync(x, d_x, n * sizeof *x, cudaMemcpyDeviceToHost, ctx->s_comp));
    CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
out:
    cudaFree(d_x);
    if (tmp.tw) czc_domain_free(&tmp);
    return czc_leave(ctx, st, err);
}

cz_status cz_cuda_quotient_h(cz_cuda_ctx *ctx, cz_fr *a, cz_fr *b, cz_fr *c, unsigned log_n, cz_errbuf *err)
{
    if (log_n > CZ_NTT_MAX_LOG_N) return cz_err(err, CZ_ERR_INVALID_ARG, "cuda quotient: 2^%u too large", log_n);
    cz_status st = czc_enter(ctx, err);
    if (st != CZ_OK) return st;
    size_t n = (size_t)1 << log_n;
    cz_fr *d[3] = { NULL, NULL, NULL };
    cz_fr *h[3] = { a, b, c };
    czc_domain tmp = { 0 };
    const czc_domain *dom = &ctx->dom;
    if (!ctx->dom.tw || ctx->dom.log_n != log_n) {
        if ((st = czc_domain_build(&tmp, log_n, ctx->s_comp, err)) != CZ_OK) goto out;
        dom = &tmp;
    }
    for (int k = 0; k < 3; k++) {
        CZC_TRY(cudaMalloc((void **)&d[k], n * sizeof(cz_fr)));
        if ((st = czc_upload(ctx, d[k], h[k], n * sizeof(cz_fr), ctx->s_comp, NULL, err)) != CZ_OK) goto out;
    }
    if ((st = czc_quotient(d[0], d[1], d[2], dom, ctx->s_comp, err)) != CZ_OK) goto out;
    CZC_TRY(cudaMemcpyAsync(a, d[0], n * sizeof(cz_fr), cudaMemcpyDeviceToHost, ctx->s_comp));
    CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
out:
    for (int k = 0; k < 3; k++) cudaFree(d[k]);
    if (tmp.tw) czc_domain_free(&tmp);
    return czc_leave(ctx, st, err);
}

cz_status cz_cuda_msm_g1(cz_cuda_ctx *ctx, cz_g1_jac *out, const cz_g1_affine *bases, const cz_scalar *scalars,
                         size_t n, unsigned window, cz_errbuf *err)
{
    cz_status st = czc_enter(ctx, err);
    if (st != CZ_OK) return st;
    cz_g1_affine *d_b = NULL;
    cz_scalar *d_s = NULL;
    czc_msm_cfg cfg = { window, 0 };
    size_t need = n * (sizeof *d_b + sizeof *d_s) + czc_msm_g1_scratch_bytes(n, &cfg), avail;
    /* admission (ctx_internal.h); the scratch is allocated later, inside
     * czc_msm_g1, and counted here */
    pthread_mutex_lock(&ctx->mem_lock);
    bool mem_locked = true;
    if ((st = czc_mem_free(&avail, err)) != CZ_OK) goto out;
    if (avail < need + ctx->reserve) {
        st = cz_err(err, CZ_ERR_BUDGET, "cuda msm: %zu points need %.2f GiB, %.2f GiB free", n, GIB(need),
                    GIB(avail));
        goto out;
    }
    CZC_TRY(cudaMalloc((void **)&d_b, (n ? n : 1) * sizeof *d_b));
    CZC_TRY(cudaMalloc((void **)&d_s, (n ? n : 1) * sizeof *d_s));
    pthread_mutex_unlock(&ctx->mem_lock);
    mem_locked = false;
    if ((st = czc_upload(ctx, d_b, bases, n * sizeof *d_b, ctx->s_comp, NULL, err)) != CZ_OK) goto out;
    if ((st = czc_upload(ctx, d_s, scalars, n * sizeof *d_s, ctx->s_comp, NULL, err)) != CZ_OK) goto out;
    st = czc_msm_g1(out, d_b, d_s, n, &cfg, ctx->s_comp, err);
out:
    if (mem_locked) pthread_mutex_unlock(&ctx->mem_lock);
    cudaFree(d_b);
    cudaFree(d_s);
    return czc_leave(ctx, st, err);
}
