/*
 * cuzk CUDA backend — GPU prove_start (contract: cz_groth16_prove_start).
 *
 * Order of work:
 *   host, before any lock: shape checks; cz_groth16_pending_begin
 *     converts the witness and starts B_G2 on the CPU executor (bg), so
 *     B_G2 runs during all the device work below; density prefix sums.
 *   upload phase (no device region: only the staging buffers' lock, per
 *     czc_upload): admission under ctx->mem_lock, a memory check with a
 *     clear CZ_ERR_BUDGET (this proof's working set, plus the parameters
 *     when their arrays are not allocated) and this proof's device buffers
 *     in one step; its two events; a, b, c, then witness and
 *     bitmaps, on the copy stream through the pinned double buffers (the
 *     host memcpy into one buffer overlaps the DMA out of the other); the
 *     host a/b/c are freed as soon as czc_upload has read them. With two
 *     workers per device this runs while the other proof's kernels hold
 *     the device region, so the transfers leave the critical path.
 *   device region (the caller's lock through the region hooks, then
 *     ctx->lock): resident parameters (uploaded once per parameter set);
 *     the compute stream waits for a, b, c (event), then the row check
 *     (a·b = c), the quotient (6 NTTs, no host round trip) and the
 *     conversion of H's coefficients; the row-check verdict, the H MSM;
 *     a wait for the witness (event), then L, A (inputs ‖ A-dense aux,
 *     gathered on the device) and B_G1 (B-dense inputs ‖ B-dense aux).
 *     Everything the proof allocated is freed before the locks go.
 *   host: the four G1 sums go into the pending handle, finished later by
 *     the unchanged cz_groth16_prove_finish.
 */
#include "cuda/ctx_internal.h"
#include "cuda/dev_algo.h"
#include "groth16/groth16_internal.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/mono_clock.h"

#define GIB(x) ((double)(x) / (1024.0 * 1024.0 * 1024.0))

static void free_abc(cz_groth16_input *in)
{
    free(in->a);
    free(in->b);
    free(in->c);
    in->a = in->b = in->c = NULL;
}

static size_t words(uint64_t nbits) { return (size_t)((nbits + 63) / 64); }

size_t cz_cuda_proof_device_bytes(const cz_groth16_params *p, const cz_pce *pce)
{
    size_t m = cz_groth16_params_domain(p), nz = pce->n_inputs + pce->n_aux;
    size_t nsc = p->n_a > p->n_b ? p->n_a : p->n_b;
    size_t nmax = m;
    if (pce->n_aux > nmax) nmax = pce->n_aux;
    if (nsc > nmax) nmax = nsc;
    size_t nw = 2 * words(pce->n_aux) + words(pce->n_inputs);
    return 3 * m * sizeof(cz_fr) + nz * sizeof(cz_fr) + nsc * sizeof(cz_scalar) + nw * (8 + 4) +
           czc_msm_g1_scratch_bytes(nmax, NULL) + ((size_t)1 << 20);
}

void cz_cuda_device_bytes_for(const cz_pce *pce, uint64_t *resident, uint64_t *proof)
{
    size_t m = 1;
    while (m < pce->n_constraints) m <<= 1;
    /* only the counts are read (the domain is n_h + 1) */
    cz_groth16_params p;
    memset(&p, 0, sizeof p);
    p.n_h = m - 1;
    p.n_l = pce->n_aux;
    p.n_a = pce->n_inputs + pce->dens_a_aux_count;
    p.n_b = pce->dens_b_input_count + pce->dens_b_aux_count;
    *resident = cz_cuda_params_device_bytes(&p);
    *proof = cz_cuda_proof_device_bytes(&p, pce);
}

cz_status cz_cuda_prove_start(cz_groth16_pending **out, cz_cuda_ctx *ctx, const cz_groth16_params *params,
                              const cz_pce *pce, cz_groth16_input *in, cz_pool *pool, cz_pool *bg, cz_errbuf *err)
{
    return cz_cuda_prove_start_ex(out, ctx, params, 0, pce, in, pool, bg, NULL, err);
}

static void region_lock(const cz_cuda_region_hooks *h)
{
    if (h && h->lock) h->lock(h->arg);
}

static void region_unlock(const cz_cuda_region_hooks *h)
{
    if (h && h->unlock) h->unlock(h->arg);
}

cz_status cz_cuda_prove_start_ex(cz_groth16_pending **out, cz_cuda_ctx *ctx, const cz_groth16_params *params,
                                 uint64_t gen, const cz_pce *pce, cz_groth16_input *in, cz_pool *pool, cz_pool *bg,
                                 const cz_cuda_region_hooks *hooks, cz_errbuf *err)
{
    *out = NULL;
    cz_status st;
    const cz_witness *w = in->w;
    size_t m = cz_groth16_params_domain(params);
    if (!in->a || !in->b || !in->c || !w) {
        free_abc(in);
        return cz_err(err, CZ_ERR_INVALID_ARG, "prove: missing a/b/c or witness");
    }
    if (in->m != m || pce->n_constraints > m) {
        free_abc(in);
        return cz_err(err, CZ_ERR_MISMATCH, "prove: a/b/c have %zu entries, parameters need domain %zu", in->m, m);
    }
    cz_groth16_pending *p = NULL;
    if ((st = cz_groth16_pending_begin(&p, params, pce, w, pool, bg, err)) != CZ_OK) {
        free_abc(in);
        return st;
    }
    size_t n_in = w->n_inputs, n_aux = w->n_aux, nz = n_in + n_aux;
    size_t nw_in = words(n_in), nw_aux = words(n_aux), nwt = 2 * nw_aux + nw_in;
    /* host: bitmaps [A aux | B input | B aux] and their prefix sums */
    uint64_t *bm = malloc((nwt ? nwt : 1) * sizeof *bm);
    uint32_t *pref = malloc((nwt ? nwt : 1) * sizeof *pref);
    if (!bm || !pref) {
        free(bm);
        free(pref);
        free_abc(in);
        cz_groth16_pending_free(p);
        return cz_err(err, CZ_ERR_NOMEM, "prove: out of memory");
    }
    memcpy(bm, pce->dens_a_aux, nw_aux * sizeof *bm);
    memcpy(bm + nw_aux, pce->dens_b_input, nw_in * sizeof *bm);
    memcpy(bm + nw_aux + nw_in, pce->dens_b_aux, nw_aux * sizeof *bm);
    cz_d_density_prefix(pref, bm, n_aux);
    cz_d_density_prefix(pref + nw_aux, bm + nw_aux, n_in);
    cz_d_density_prefix(pref + nw_aux + nw_in, bm + nw_aux + nw_in, n_aux);

    /* Upload phase: outside the caller's region (the engine's device lock)
     * and the context's lock, so that this proof's transfers run while
     * another proof's kernels hold the device. It takes only the staging
     * buffers' lock (inside czc_upload). */
    cz_groth16_timings t;
    memset(&t, 0, sizeof t);
    cz_g1_jac H, L, A, B1;
    cz_fr *d_a = NULL, *d_b = NULL, *d_c = NULL, *d_z = NULL;
    cz_scalar *d_sc = NULL;
    uint64_t *d_bm = NULL;
    uint32_t *d_pref = NULL;
    uint64_t *d_bad = NULL;
    cudaEvent_t ev_abc = NULL, ev_z = NULL; /* this proof's upload milestones */
    size_t need = cz_cuda_proof_device_bytes(params, pce), avail;
    size_t nsc = params->n_a > params->n_b ? params->n_a : params->n_b;
    bool in_region = false, locked = false, mem_locked = false;
    if ((st = czc_check_usable(ctx, err)) != CZ_OK) goto out;
    CZC_TRY(cudaSetDevice(ctx->device));
    /* admission (ctx_internal.h): the check and this proof's buffers in one
     * step; the parameters count unless their arrays are allocated (they
     * are uploaded after this proof's buffers exist, so both must fit now
     * and the upload's own check then passes) */
    pthread_mutex_lock(&ctx->mem_lock);
    mem_locked = true;
    {
        size_t pneed = czc_params_allocated(ctx, params, gen) ? 0 : cz_cuda_params_device_bytes(params);
        if ((st = czc_mem_free(&avail, err)) != CZ_OK) goto out;
        if (pneed && avail < pneed + ctx->reserve) {
            st = cz_err(err, CZ_ERR_BUDGET,
                        "cuda: parameters need %.2f GiB on %s, %.2f GiB free (%.2f GiB kept in reserve)",
                        GIB(pneed), ctx->name, GIB(avail), GIB(ctx->reserve));
            goto out;
        }
        if (avail < need + pneed + ctx->reserve) {
            st = cz_err(err, CZ_ERR_BUDGET,
                        "cuda: a proof of domain %zu needs %.2f GiB on %s beyond the resident parameters, %.2f GiB "
                        "free (%.2f GiB kept in reserve)",
                        m, GIB(need), ctx->name, GIB(avail - pneed), GIB(ctx->reserve));
            goto out;
        }
    }
    CZC_TRY(cudaMalloc((void **)&d_a, m * sizeof(cz_fr)));
    CZC_TRY(cudaMalloc((void **)&d_b, m * sizeof(cz_fr)));
    CZC_TRY(cudaMalloc((void **)&d_c, m * sizeof(cz_fr)));
    CZC_TRY(cudaMalloc((void **)&d_z, (nz ? nz : 1) * sizeof(cz_fr)));
    CZC_TRY(cudaMalloc((void **)&d_sc, (nsc ? nsc : 1) * sizeof(cz_scalar)));
    CZC_TRY(cudaMalloc((void **)&d_bm, (nwt ? nwt : 1) * sizeof *d_bm));
    CZC_TRY(cudaMalloc((void **)&d_pref, (nwt ? nwt : 1) * sizeof *d_pref));
    CZC_TRY(cudaMalloc((void **)&d_bad, sizeof *d_bad));
    pthread_mutex_unlock(&ctx->mem_lock);
    mem_locked = false;
    CZC_TRY(cudaEventCreateWithFlags(&ev_abc, cudaEventDisableTiming));
    CZC_TRY(cudaEventCreateWithFlags(&ev_z, cudaEventDisableTiming));
    /* copy stream: a, b, c, then the witness and the bitmaps; czc_upload
     * has read each host array when it returns */
    if ((st = czc_upload(ctx, d_a, in->a, m * sizeof(cz_fr), ctx->s_copy, pool, err)) != CZ_OK) goto out;
    if ((st = czc_upload(ctx, d_b, in->b, m * sizeof(cz_fr), ctx->s_copy, pool, err)) != CZ_OK) goto out;
    if ((st = czc_upload(ctx, d_c, in->c, m * sizeof(cz_fr), ctx->s_copy, pool, err)) != CZ_OK) goto out;
    CZC_TRY(cudaEventRecord(ev_abc, ctx->s_copy));
    free_abc(in); /* docs/design.md §4 rule 3: the host copies go at once */
    if ((st = czc_upload(ctx, d_z, w->inputs, n_in * sizeof(cz_fr), ctx->s_copy, pool, err)) != CZ_OK) goto out;
    if ((st = czc_upload(ctx, d_z + n_in, w->aux, n_aux * sizeof(cz_fr), ctx->s_copy, pool, err)) != CZ_OK)
        goto out;
    if ((st = czc_upload(ctx, d_bm, bm, nwt * sizeof *bm, ctx->s_copy, NULL, err)) != CZ_OK) goto out;
    if ((st = czc_upload(ctx, d_pref, pref, nwt * sizeof *pref, ctx->s_copy, NULL, err)) != CZ_OK) goto out;
    CZC_TRY(cudaEventRecord(ev_z, ctx->s_copy));

    /* The device region: the caller's lock, the resident parameters (a
     * no-op after the first proof of a set), the context's lock. */
    region_lock(hooks);
    in_region = true;
    if ((st = cz_cuda_params_upload_gen(ctx, params, gen, err)) != CZ_OK) goto out;
    if ((st = czc_enter(ctx, err)) != CZ_OK) goto out;
    locked = true;
    if (!czc_is_resident(ctx, params, gen)) { /* another thread replaced the resident set meanwhile */
        st = cz_err(err, CZ_ERR_BUSY, "cuda: resident parameters changed during prove_start; retry");
        goto out;
    }
    double t0 = cz_mono_ms();
    /* compute stream: the row check and the quotient once a, b, c are
     * there, while the witness may still be on its way */
    CZC_TRY(cudaStreamWaitEvent(ctx->s_comp, ev_abc, 0));
    if ((st = czc_check_rows(d_a, d_b, d_c, m, d_bad, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_quotient(d_a, d_b, d_c, &ctx->dom, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_scalars_from_mont((cz_scalar *)d_a, d_a, m - 1, ctx->s_comp, err)) != CZ_OK) goto out;

    uint64_t bad = 0;
    CZC_TRY(cudaMemcpyAsync(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost, ctx->s_comp));
    CZC_TRY(cudaStreamSynchronize(ctx->s_comp));
    if (bad != UINT64_MAX) {
        st = cz_err(err, CZ_ERR_UNSATISFIED, "prove: witness does not satisfy the circuit (constraint row %llu of %llu)",
                    (unsigned long long)bad, (unsigned long long)pce->n_constraints);
        goto out;
    }
    double t1 = cz_mono_ms();
    t.ntt_ms = t1 - t0;
    if ((st = czc_msm_g1(&H, ctx->d_h, (const cz_scalar *)d_a, m - 1, NULL, ctx->s_comp, err)) != CZ_OK) goto out;
    double t2 = cz_mono_ms();
    t.msm_h_ms = t2 - t1;

    CZC_TRY(cudaStreamWaitEvent(ctx->s_comp, ev_z, 0));
    cz_scalar *z = (cz_scalar *)d_z; /* canonical in place */
    if ((st = czc_scalars_from_mont(z, d_z, nz, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_msm_g1(&L, ctx->d_l, z + n_in, n_aux, NULL, ctx->s_comp, err)) != CZ_OK) goto out;
    double t3 = cz_mono_ms();
    t.msm_l_ms = t3 - t2;

    /* A: every input, then the A-dense aux */
    if (n_in) CZC_TRY(cudaMemcpyAsync(d_sc, z, n_in * sizeof(cz_scalar), cudaMemcpyDeviceToDevice, ctx->s_comp));
    if ((st = czc_gather(d_sc + n_in, z + n_in, n_aux, d_bm, d_pref, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_msm_g1(&A, ctx->d_a, d_sc, params->n_a, NULL, ctx->s_comp, err)) != CZ_OK) goto out;
    double t4 = cz_mono_ms();
    t.msm_a_ms = t4 - t3;

    /* B_G1: B-dense inputs, then B-dense aux */
    if ((st = czc_gather(d_sc, z, n_in, d_bm + nw_aux, d_pref + nw_aux, ctx->s_comp, err)) != CZ_OK) goto out;
    if ((st = czc_gather(d_sc + p->nb_inputs, z + n_in, n_aux, d_bm + nw_aux + nw_in, d_pref + nw_aux + nw_in,
                         ctx->s_comp, err)) != CZ_OK)
        goto out;
    if ((st = czc_msm_g1(&B1, ctx->d_b1, d_sc, params->n_b, NULL, ctx->s_comp, err)) != CZ_OK) goto out;
    t.msm_b_g1_ms = cz_mono_ms() - t4;
out:
    if (mem_locked) pthread_mutex_unlock(&ctx->mem_lock);
    /* Nothing of this proof stays on the device. Its uploads are finished
     * first (ev_z: the copy stream may carry other proofs' uploads too);
     * a proof whose work ends in error is not returned, even when its
     * sums were read back. */
    if (ev_z || ev_abc) {
        cudaError_t e1 = ev_z ? cudaEventSynchronize(ev_z) : cudaSuccess;
        cudaError_t e2 = locked ? cudaStreamSynchronize(ctx->s_comp) : cudaSuccess;
        if (st == CZ_OK && (e1 != cudaSuccess || e2 != cudaSuccess))
            st = czc_fail(e1 != cudaSuccess ? e1 : e2, __FILE__, __LINE__, "synchronising the end of the proof", err);
    }
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    cudaFree(d_z);
    cudaFree(d_sc);
    cudaFree(d_bm);
    cudaFree(d_pref);
    cudaFree(d_bad);
    if (ev_abc) cudaEventDestroy(ev_abc);
    if (ev_z) cudaEventDestroy(ev_z);
    if (locked) st = czc_leave(ctx, st, err);
    else st = czc_note_failure(ctx, st, err); /* an upload-phase CUDA error: the same probe */
    if (in_region) region_unlock(hooks);
    free(bm);
    free(pref);
    free_abc(in);
    if (st != CZ_OK) {
        cz_groth16_pending_free(p);
        return st;
    }
    cz_groth16_pending_set_g1(p, &H, &L, &A, &B1, &t);
    *out = p;
    return CZ_OK;
}
