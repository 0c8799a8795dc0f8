/*
 * The split Groth16 prover (docs/design.md §2.6, §4.4: the reference engine's prove_start /
 * prove_finish).
 *
 * prove_start: checks a_j·b_j = c_j row by row (a cheap O(m) guard: an
 * unsatisfied witness never yields an invalid proof), runs the quotient
 * (6 NTTs), frees b and c, runs one MSM for H + L (the quotient
 * coefficients over H's points, then the aux witness over L's), frees a,
 * then the A and B_G1 MSMs over the witness, and submits the B_G2 MSM
 * (the costliest per point) to the background executor. What
 * survives into the pending handle is the canonical witness (needed by
 * B_G2) and four Jacobian points.
 * prove_finish: joins B_G2 and assembles A, B, C with fresh r, s in
 * constant time.
 *
 * NTT domains (twiddle tables) are built once per size and cached for the
 * life of the process, since every partition of a circuit shares them.
 */
#include "common/big_alloc.h"
#include "cuzk/groth16.h"
#include "groth16/groth16_internal.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/mono_clock.h"

/* The proof is published, so its affine points are public once computed;
 * telling memcheck so (a no-op outside valgrind, and nothing at all where
 * the header is missing) lets tests/ctime check everything before this
 * point without flagging the encoder's branches on the public output (the
 * infinity and sign flags of the compressed points). */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define CZ_DECLASSIFY(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#endif
#endif
#ifndef CZ_DECLASSIFY
#define CZ_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif

static pthread_mutex_t domain_lock = PTHREAD_MUTEX_INITIALIZER;
static cz_ntt_domain *domains[CZ_NTT_MAX_LOG_N + 1];

static cz_status get_domain(const cz_ntt_domain **out, unsigned logm, cz_pool *pool)
{
    if (logm > CZ_NTT_MAX_LOG_N) return CZ_ERR_UNSUPPORTED;
    cz_status st = CZ_OK;
    pthread_mutex_lock(&domain_lock);
    if (!domains[logm]) st = cz_ntt_domain_create(&domains[logm], logm, pool);
    *out = domains[logm];
    pthread_mutex_unlock(&domain_lock);
    return st;
}

/* struct cz_groth16_pending lives in groth16_internal.h, shared with
 * prover_parts.c so that other back-ends (the CUDA prover) can build a
 * pending proof and finish it with cz_groth16_prove_finish below. */


/* The table set of query q when the parameters carry one built for this
 * layout (off: where the query's aux part starts), else NULL (plain MSM). */
static const cz_msm_g1_tables *table_g1(const cz_groth16_params *params, int q, size_t off)
{
    const cz_groth16_tables *t = params->tables;
    if (!t || !t->g1[q]) return NULL;
    if ((q == CZ_GROTH16_Q_A && off != t->a_off) || (q == CZ_GROTH16_Q_B_G1 && off != t->b_off)) return NULL;
    return t->g1[q];
}

/* Scratch bytes of a G1 MSM over n bases, over table set tb (NULL: plain). */
static size_t g1_scratch(size_t n, const cz_msm_g1_tables *tb, cz_pool *pool)
{
    return tb ? cz_msm_g1_tables_scratch_size(n, cz_msm_g1_tables_count(tb), cz_msm_g1_tables_bits(tb), pool, NULL)
              : cz_msm_g1_scratch_size(n, pool, NULL);
}

static const cz_msm_g2_tables *table_g2(const cz_groth16_params *params, size_t off)
{
    const cz_groth16_tables *t = params->tables;
    return t && t->b_g2 && off == t->b_off ? t->b_g2 : NULL;
}

void cz__groth16_b2_job(void *arg)
{
    cz_groth16_pending *p = arg;
    double t0 = cz_mono_ms();
    const cz_pce *pce = p->pce;
    cz_g2_jac x, y;
    /* The task runs on a thread of the executor (bg), not of the compute
     * pool, so its parallel calls on the compute pool are served by that
     * pool's workers alongside whatever the next partition runs there:
     * one proof alone gets every thread; a pipeline shares them. */
    cz_status st = cz_msm_g2_density(&x, p->params->b_g2, p->nb_inputs, p->z, pce->n_inputs, pce->dens_b_input,
                                     p->pool, NULL);
    const cz_msm_g2_tables *tb = table_g2(p->params, p->nb_inputs);
    if (st == CZ_OK && tb)
        st = cz_msm_g2_tables_density(&y, tb, p->z + pce->n_inputs, pce->n_aux, pce->dens_b_aux, p->pool, NULL);
    else if (st == CZ_OK)
        st = cz_msm_g2_density(&y, p->params->b_g2 + p->nb_inputs, p->params->n_b - p->nb_inputs,
                               p->z + pce->n_inputs, pce->n_aux, pce->dens_b_aux, p->pool, NULL);
    if (st == CZ_OK) cz_g2_jac_add(&p->b2, &x, &y);
    p->b2_status = st;
    p->t.b_g2_ms = cz_mono_ms() - t0;
}

void cz_groth16_pending_free(cz_groth16_pending *p)
{
    if (!p) return;
    if (p->b2_task) cz_task_wait(p->b2_task);
    /* The witness copy and the MSM results over it (H, L, A, B) are secret
     * for circuits with a private witness (circom): wipe before free. */
    if (p->z) explicit_bzero(p->z, (p->nz ? p->nz : 1) * sizeof(cz_scalar));
    free(p->z);
    explicit_bzero(p, sizeof *p);
    free(p);
}

static void free_abc(cz_groth16_input *in)
{
    free(in->a);
    free(in->b);
    free(in->c);
    in->a = in->b = in->c = NULL;
}

typedef struct {
    const cz_fr *a, *b, *c;
    _Atomic size_t bad; /* smallest unsatisfied row, SIZE_MAX if none */
} guard_ctx;

static void guard_range(void *arg, size_t lo, size_t hi)
{
    guard_ctx *g = arg;
    for (size_t j = lo; j < hi; j++) {
        cz_fr t;
        cz_fr_mul(&t, &g->a[j], &g->b[j]);
        if (!cz_fr_eq(&t, &g->c[j])) {
            size_t cur = atomic_load(&g->bad);
            while (j < cur && !atomic_compare_exchange_weak(&g->bad, &cur, j)) {
            }
            return;
        }
    }
}

cz_status cz_groth16_prove_start(cz_groth16_pending **out, const cz_groth16_params *params, const cz_pce *pce,
                                 cz_groth16_input *in, cz_pool *pool, cz_pool *bg, cz_errbuf *err)
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
    if (w->n_inputs != pce->n_inputs || w->n_aux != pce->n_aux) {
        free_abc(in);
        return cz_err(err, CZ_ERR_MISMATCH, "prove: witness has %zu inputs / %zu aux, circuit has %llu / %llu",
                      w->n_inputs, w->n_aux, (unsigned long long)pce->n_inputs, (unsigned long long)pce->n_aux);
    }
    if ((st = cz_groth16_params_check_shape(params, pce, err)) != CZ_OK) {
        free_abc(in);
        return st;
    }
    unsigned logm = 0;
    while (((size_t)1 << logm) < m) logm++;
    const cz_ntt_domain *dom;
    if ((st = get_domain(&dom, logm, pool)) != CZ_OK) {
        free_abc(in);
        return cz_err(err, st, "prove: cannot build the NTT domain 2^%u", logm);
    }
    /* cheap guard: every row satisfied (in parallel: m products, ~20 ms
     * on one core at 2^20); the first failing row is reported */
    guard_ctx g = {in->a, in->b, in->c, SIZE_MAX};
    cz_pool_parallel_range(pool, 0, m, 8192, guard_range, &g);
    if (g.bad != SIZE_MAX) {
        free_abc(in);
        return cz_err(err, CZ_ERR_UNSATISFIED,
                      "prove: witness does not satisfy the circuit (constraint row %zu of %llu)", g.bad,
                      (unsigned long long)pce->n_constraints);
    }
    cz_groth16_pending *p = calloc(1, sizeof *p);
    size_t nz = w->n_inputs + w->n_aux;
    if (!p || !(p->z = cz_big_alloc_array(nz ? nz : 1, sizeof(cz_scalar)))) {
        free(p);
        free_abc(in);
        return cz_err(err, CZ_ERR_NOMEM, "prove: out of memory");
    }
    p->nz = nz;
    p->params = params;
    p->pce = pce;
    p->pool = pool;
    p->nb_inputs = pce->dens_b_input_count;

    double t0 = cz_mono_ms();
    cz_quotient_h(pool, dom, in->a, in->b, in->c);
    free(in->b);
    free(in->c);
    in->b = in->c = NULL;
    double t1 = cz_mono_ms();
    p->t.ntt_ms = t1 - t0;

    /* H (the m-1 quotient coefficients, converted in place) and L (the
     * aux witness) both enter C with coefficient 1, so they are summed by
     * one MSM over H's points followed by L's: it pays each window's
     * bucket reduction and the 0/1 split once instead of twice and, with
     * more points, may take a wider window (measured, CPU time of H + L
     * on a loaded 2-vCPU Zen 4: 2-10% less with IFMA lanes from 2^17 +
     * 2^16 to 2^19 + 2^18 points; without them -5%..+3% up to 2^18 + 2^18
     * and 1-9% more at 2^19 + 2^18, where the planner's c = 16 is dearer
     * than the c = 15 it gives H alone).
     * The witness is converted first, while a is still held; the peak
     * (a + witness + scalars + the scratch for m-1+n_aux points) is what
     * the back-end's memory estimate charges for prove_start. */
    cz_scalar *hs = (cz_scalar *)in->a;
    cz_msm_scalars_from_fr(hs, in->a, m - 1, pool);
    cz_msm_scalars_from_fr(p->z, w->inputs, w->n_inputs, pool);
    cz_msm_scalars_from_fr(p->z + w->n_inputs, w->aux, w->n_aux, pool);
    const cz_scalar *zin = p->z, *zaux = p->z + w->n_inputs;
    const cz_msm_g1_seg hl[2] = {{params->h, hs, m - 1}, {params->l, zaux, w->n_aux}};
    const cz_msm_g1_tables *hl_tabs[2] = {table_g1(params, CZ_GROTH16_Q_H, 0), table_g1(params, CZ_GROTH16_Q_L, 0)};
    const cz_msm_g1_tables *ta = table_g1(params, CZ_GROTH16_Q_A, w->n_inputs);
    const cz_msm_g1_tables *tb1 = table_g1(params, CZ_GROTH16_Q_B_G1, p->nb_inputs);
    /* One scratch block for the three G1 MSMs of the aux witness (H + L, A,
     * B_G1), which run one after another: each MSM allocating its own
     * maps fresh pages (the mmap threshold is pinned at 128 KiB,
     * backend.c) and faults them in again, ~4,000 faults a shaped-16
     * proof, ~15 ms of system time on a 2-vCPU VM (BENCHMARKS.md "One
     * scratch block for the G1 MSMs"). A or B_G1 shares it only when its
     * scratch is the same size as H + L's: the same window bound, so the
     * same slot layout, and the pages it writes are pages H + L wrote;
     * a call with another layout would write other pages of the block,
     * beyond what the memory estimate charges (one MSM's resident
     * scratch), so it allocates its own as before. */
    size_t s_hl = g1_scratch(m - 1 + w->n_aux, hl_tabs[0], pool);
    if (hl_tabs[1]) {
        size_t s = g1_scratch(m - 1 + w->n_aux, hl_tabs[1], pool);
        if (s > s_hl) s_hl = s;
    }
    cz_msm_opts so = {.scratch = malloc(s_hl), .scratch_size = s_hl};
    const cz_msm_opts *o_hl = so.scratch ? &so : NULL;
    size_t s_a = g1_scratch(ta ? cz_msm_g1_tables_n(ta) : params->n_a - w->n_inputs, ta, pool);
    size_t s_b1 = g1_scratch(tb1 ? cz_msm_g1_tables_n(tb1) : params->n_b - p->nb_inputs, tb1, pool);
    const cz_msm_opts *o_a = s_a == s_hl ? o_hl : NULL, *o_b1 = s_b1 == s_hl ? o_hl : NULL;
    if (hl_tabs[0] || hl_tabs[1])
        st = cz_msm_g1_tables_concat(&p->h, hl, hl_tabs, 2, pool, o_hl);
    else
        st = cz_msm_g1_concat(&p->h, hl, 2, pool, o_hl);
    cz_g1_jac_set_infinity(&p->l);
    free(in->a);
    in->a = NULL;
    double t3 = cz_mono_ms();
    p->t.msm_h_ms = t3 - t1; /* H and L together (cz_groth16_timings) */
    p->t.msm_l_ms = 0;
    if (st != CZ_OK) goto fail;

    cz_g1_jac x, y;
    st = cz_msm_g1(&x, params->a, zin, w->n_inputs, pool, NULL);
    if (st == CZ_OK && ta)
        st = cz_msm_g1_tables_density(&y, ta, zaux, w->n_aux, pce->dens_a_aux, pool, o_a);
    else if (st == CZ_OK)
        st = cz_msm_g1_density(&y, params->a + w->n_inputs, params->n_a - w->n_inputs, zaux, w->n_aux,
                               pce->dens_a_aux, pool, o_a);
    if (st != CZ_OK) goto fail;
    cz_g1_jac_add(&p->a, &x, &y);
    double t4 = cz_mono_ms();
    p->t.msm_a_ms = t4 - t3;

    st = cz_msm_g1_density(&x, params->b_g1, p->nb_inputs, zin, w->n_inputs, pce->dens_b_input, pool, NULL);
    if (st == CZ_OK && tb1)
        st = cz_msm_g1_tables_density(&y, tb1, zaux, w->n_aux, pce->dens_b_aux, pool, o_b1);
    else if (st == CZ_OK)
        st = cz_msm_g1_density(&y, params->b_g1 + p->nb_inputs, params->n_b - p->nb_inputs, zaux, w->n_aux,
                               pce->dens_b_aux, pool, o_b1);
    if (st != CZ_OK) goto fail;
    cz_g1_jac_add(&p->b1, &x, &y);
    p->t.msm_b_g1_ms = cz_mono_ms() - t4;
    free(so.scratch);
    so.scratch = NULL;

    if ((st = cz_pool_submit(bg, cz__groth16_b2_job, p, &p->b2_task)) != CZ_OK) goto fail;
    *out = p;
    return CZ_OK;
fail:
    free(so.scratch);
    cz_groth16_pending_free(p);
    return cz_err(err, st, "prove: MSM failed: %s", cz_status_str(st));
}

cz_status cz_groth16_prove_finish(cz_groth16_pending *p, const cz_fr *test_rs,
                                  uint8_t proof[CZ_GROTH16_PROOF_BYTES], cz_groth16_timings *timings,
                                  cz_errbuf *err)
{
    cz_task_wait(p->b2_task);
    p->b2_task = NULL;
    double t0 = cz_mono_ms();
    cz_status st = p->b2_status;
    if (st != CZ_OK) {
        cz_groth16_pending_free(p);
        return cz_err(err, st, "prove: B_G2 MSM failed: %s", cz_status_str(st));
    }
    const cz_groth16_vk *vk = &p->params->vk;
    cz_fr rs[3]; /* r, s, r·s: secrets */
    if (test_rs) {
        rs[0] = test_rs[0];
        rs[1] = test_rs[1];
    } else if ((st = cz_fr_random(&rs[0])) != CZ_OK || (st = cz_fr_random(&rs[1])) != CZ_OK) {
        cz_groth16_pending_free(p);
        return cz_err(err, st, "prove: cannot read the OS random number generator");
    }
    cz_fr_mul(&rs[2], &rs[0], &rs[1]);
    cz_scalar r, s, rsk;
    cz_scalar_from_fr(&r, &rs[0]);
    cz_scalar_from_fr(&s, &rs[1]);
    cz_scalar_from_fr(&rsk, &rs[2]);

    cz_g1_jac d1, A, B1, C, t;
    cz_g2_jac d2, B;
    cz_g1_jac_from_affine(&d1, &vk->delta_g1);
    cz_g2_jac_from_affine(&d2, &vk->delta_g2);
    /* A = alpha + A_msm + r delta1 */
    cz_g1_jac_mul_ct(&t, &d1, &r);
    cz_g1_jac_add_affine(&A, &p->a, &vk->alpha_g1);
    cz_g1_jac_add(&A, &A, &t);
    /* B = beta2 + B2_msm + s delta2 */
    cz_g2_jac tt;
    cz_g2_jac_mul_ct(&tt, &d2, &s);
    cz_g2_jac_add_affine(&B, &p->b2, &vk->beta_g2);
    cz_g2_jac_add(&B, &B, &tt);
    /* B1 = beta1 + B1_msm + s delta1 */
    cz_g1_jac_mul_ct(&t, &d1, &s);
    cz_g1_jac_add_affine(&B1, &p->b1, &vk->beta_g1);
    cz_g1_jac_add(&B1, &B1, &t);
    /* C = s A + r B1 - r s delta1 + H + L */
    cz_g1_jac_mul_ct(&C, &A, &s);
    cz_g1_jac_mul_ct(&t, &B1, &r);
    cz_g1_jac_add(&C, &C, &t);
    cz_g1_jac_mul_ct(&t, &d1, &rsk);
    cz_g1_jac_neg(&t, &t);
    cz_g1_jac_add(&C, &C, &t);
    cz_g1_jac_add(&C, &C, &p->h);
    cz_g1_jac_add(&C, &C, &p->l);

    cz_groth16_proof pr;
    cz_g1_jac_to_affine(&pr.a, &A);
    cz_g2_jac_to_affine(&pr.b, &B);
    cz_g1_jac_to_affine(&pr.c, &C);
    CZ_DECLASSIFY(&pr, sizeof pr);
    cz_groth16_proof_encode(proof, &pr);
    explicit_bzero(rs, sizeof rs);
    explicit_bzero(&r, sizeof r);
    explicit_bzero(&s, sizeof s);
    explicit_bzero(&rsk, sizeof rsk);
    explicit_bzero(&t, sizeof t);
    explicit_bzero(&tt, sizeof tt);
    /* A, B, B1, C are r/s-blinded sums (the proof is their affine form,
     * public, but the projective representatives are not) */
    explicit_bzero(&A, sizeof A);
    explicit_bzero(&B, sizeof B);
    explicit_bzero(&B1, sizeof B1);
    explicit_bzero(&C, sizeof C);
    explicit_bzero(&pr, sizeof pr);
    p->t.finish_ms = cz_mono_ms() - t0;
    if (timings) *timings = p->t;
    cz_groth16_pending_free(p);
    return CZ_OK;
}

cz_status cz_groth16_prove(const cz_groth16_params *params, const cz_pce *pce, cz_groth16_input *in, cz_pool *pool,
                           const cz_fr *test_rs, uint8_t proof[CZ_GROTH16_PROOF_BYTES], cz_groth16_timings *timings,
                           cz_errbuf *err)
{
    cz_groth16_pending *p;
    cz_status st = cz_groth16_prove_start(&p, params, pce, in, pool, NULL, err);
    if (st != CZ_OK) return st;
    return cz_groth16_prove_finish(p, test_rs, proof, timings, err);
}
