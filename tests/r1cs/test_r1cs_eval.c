/*
 * Recorded-matrix synthesis (SpMV) against direct evaluation.
 *
 * A random circuit (seeded) allocates inputs and aux interleaved with random
 * values and enforces random constraints whose LCs contain duplicate
 * variables, zero coefficients, small and large coefficients and the
 * constant one. While synthesizing with values, the test evaluates every
 * constraint's a, b, c directly from the raw terms (plain field sums, no
 * merging, no interning, no CSR) — the reference. cz_synthesize /
 * cz_pce_eval over the recorded matrices must reproduce it exactly, for a
 * NULL pool and pools of 1 and 2 threads, with the appended input rows
 * (a = x_i, b = c = 0) and zero padding up to m. Density bitmaps are
 * recomputed from the reference terms (nonzero merged coefficient).
 * One LC in four repeats an earlier one (of this row or up to 23 rows
 * back), so SpMV's copies of repeated rows (cz_pce.rep) are checked the
 * same way, across the pools' row ranges, and each listed repeat is
 * checked to be an exact copy of a row evaluated before it.
 */
#include "testutil.h"
#include "cuzk/circuit.h"
#include "cuzk/circuits.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rnd(rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ull;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rnd_fr(rng_t *r, cz_fr *out)
{
    uint8_t b[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = rnd(r);
        memcpy(b + 8 * i, &v, 8);
    }
    cz_fr_from_uniform_bytes(out, b);
}

/* The terms of one LC as the circuit added them. */
enum { HIST = 24 };
typedef struct {
    unsigned nt;
    size_t slots[12];
    cz_fr cf[12];
} term_list;

typedef struct {
    uint64_t seed;
    size_t n_cons;
    term_list (*hist)[3]; /* the last HIST rows' LCs, row j at j % HIST */
    /* reference outputs (filled when values are present) */
    cz_fr *ra, *rb, *rc;
    /* reference density: merged coefficient per (row, var) is tracked by
     * accumulating per-row sums in a dense scratch */
    uint8_t *ref_da, *ref_db, *ref_dbi; /* per aux / input flags */
    size_t max_vars;
} rand_ctx;

static void rnd_coeff(rng_t *r, cz_fr *c)
{
    switch (rnd(r) % 6) {
    case 0: *c = CZ_FR_ONE; break;
    case 1: cz_fr_neg(c, &CZ_FR_ONE); break;
    case 2: *c = CZ_FR_ZERO; break;
    case 3: cz_fr_from_u64(c, rnd(r) % 1000); break;
    default: rnd_fr(r, c);
    }
}

static cz_status rand_synth(cz_cs *cs, const void *vctx)
{
    const rand_ctx *ctx = vctx;
    rng_t r = {ctx->seed};
    bool vals = cz_cs_has_values(cs);
    cz_var *vars = malloc(ctx->max_vars * sizeof(cz_var));
    cz_fr *vv = malloc(ctx->max_vars * sizeof(cz_fr));
    /* per-row merged coefficient sums for density, indexed by slot in vars */
    cz_fr *acc = malloc(ctx->max_vars * sizeof(cz_fr));
    if (!vars || !vv || !acc)
        return CZ_ERR_NOMEM;
    size_t nv = 1;
    vars[0] = CZ_VAR_ONE;
    vv[0] = CZ_FR_ONE;
    cz_lc lc[3];
    for (int k = 0; k < 3; k++)
        cz_lc_init(&lc[k], cs);
    for (size_t j = 0; j < ctx->n_cons; j++) {
        /* allocate 0..2 new variables, inputs 1 time in 5 */
        unsigned na = (unsigned)(rnd(&r) % 3);
        for (unsigned i = 0; i < na && nv < ctx->max_vars; i++, nv++) {
            rnd_fr(&r, &vv[nv]);
            if (rnd(&r) % 5 == 0)
                cz_cs_alloc_input(cs, &vars[nv], &vv[nv]);
            else
                cz_cs_alloc_aux(cs, &vars[nv], &vv[nv]);
        }
        cz_fr ref[3];
        for (int k = 0; k < 3; k++) {
            cz_lc_clear(&lc[k]);
            ref[k] = CZ_FR_ZERO;
            term_list *tl = &ctx->hist[j % HIST][k];
            size_t *slots = tl->slots;
            cz_fr *cf = tl->cf;
            unsigned nt;
            /* one LC in four repeats an earlier one, as Poseidon's S-box
             * does: of an earlier matrix of this row, or of any matrix up to
             * HIST - 1 rows back (some of them in a later matrix, which
             * SpMV evaluates after this one and so must not copy from) */
            size_t back = rnd(&r) % 4 == 0 ? (size_t)(rnd(&r) % (j < HIST ? j + 1 : HIST)) : SIZE_MAX;
            int from = (int)(rnd(&r) % 3);
            if (back == 0 && k > 0) from = (int)(rnd(&r) % (unsigned)k);
            if (back != SIZE_MAX && (back > 0 || k > 0)) {
                *tl = ctx->hist[(j - back) % HIST][from];
                nt = tl->nt;
            } else {
                nt = (unsigned)(rnd(&r) % 12); /* some rows spill to the heap, some empty */
                tl->nt = nt;
                for (unsigned t = 0; t < nt; t++) {
                    /* bias towards a few variables so duplicates happen */
                    size_t slot = rnd(&r) % 4 == 0 ? nv - 1 : rnd(&r) % nv;
                    cz_fr c;
                    rnd_coeff(&r, &c);
                    if (t > 0 && rnd(&r) % 4 == 0) {
                        /* exact cancellation of the previous term */
                        slot = slots[t - 1];
                        cz_fr_neg(&c, &cf[t - 1]);
                    }
                    slots[t] = slot;
                    cf[t] = c;
                }
            }
            for (unsigned t = 0; t < nt; t++) {
                cz_lc_add(&lc[k], vars[slots[t]], &cf[t]);
                if (vals && ctx->ra) {
                    cz_fr p;
                    cz_fr_mul(&p, &cf[t], &vv[slots[t]]);
                    cz_fr_add(&ref[k], &ref[k], &p);
                }
            }
            /* reference density for A (k=0) and B (k=1): merged sums */
            if (ctx->ref_da && k < 2 && cz_cs_wants_lc(cs)) {
                for (unsigned t = 0; t < nt; t++)
                    acc[slots[t]] = CZ_FR_ZERO;
                for (unsigned t = 0; t < nt; t++)
                    cz_fr_add(&acc[slots[t]], &acc[slots[t]], &cf[t]);
                for (unsigned t = 0; t < nt; t++) {
                    if (cz_fr_is_zero(&acc[slots[t]]))
                        continue;
                    cz_var v = vars[slots[t]];
                    if (cz_var_is_aux(v))
                        (k == 0 ? ctx->ref_da : ctx->ref_db)[cz_var_index(v)] = 1;
                    else if (k == 1)
                        ctx->ref_dbi[cz_var_index(v)] = 1;
                }
            }
        }
        if (vals && ctx->ra) {
            ctx->ra[j] = ref[0];
            ctx->rb[j] = ref[1];
            ctx->rc[j] = ref[2];
        }
        cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2], "rand");
    }
    for (int k = 0; k < 3; k++)
        cz_lc_free(&lc[k]);
    free(vars);
    free(vv);
    free(acc);
    return CZ_OK;
}

static bool bit(const uint64_t *w, size_t i) { return (w[i / 64] >> (i % 64)) & 1; }

static void run_random(size_t n_cons, cz_pool **pools, int npools)
{
    rand_ctx ctx = {.seed = cz_rng_u64(), .n_cons = n_cons, .max_vars = 2 * n_cons + 2};
    ctx.ra = calloc(n_cons, sizeof(cz_fr));
    ctx.rb = calloc(n_cons, sizeof(cz_fr));
    ctx.rc = calloc(n_cons, sizeof(cz_fr));
    ctx.ref_da = calloc(ctx.max_vars, 1);
    ctx.ref_db = calloc(ctx.max_vars, 1);
    ctx.ref_dbi = calloc(ctx.max_vars, 1);
    ctx.hist = calloc(HIST, sizeof *ctx.hist);
    cz_pce *p = NULL;
    cz_witness w0;
    assert_int_equal(cz_pce_record(&p, rand_synth, &ctx, &w0), CZ_OK);
    assert_int_equal(p->n_circuit_constraints, n_cons);
    /* density against the reference */
    for (size_t i = 0; i < p->n_aux; i++) {
        assert_int_equal(bit(p->dens_a_aux, i), ctx.ref_da[i]);
        assert_int_equal(bit(p->dens_b_aux, i), ctx.ref_db[i]);
    }
    for (size_t i = 0; i < p->n_inputs; i++)
        assert_int_equal(bit(p->dens_b_input, i), ctx.ref_dbi[i]);
    /* no zero coefficients, strictly increasing columns */
    const cz_csr *mats[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++)
        for (uint64_t j = 0; j < p->n_constraints; j++)
            for (uint64_t t = mats[k]->row_ptr[j]; t < mats[k]->row_ptr[j + 1]; t++) {
                assert_false(cz_fr_is_zero(&p->coeffs[mats[k]->coef[t]]));
                if (t > mats[k]->row_ptr[j])
                    assert_true(mats[k]->col[t - 1] < mats[k]->col[t]);
            }
    /* the repeated rows: each an exact copy of a row that SpMV evaluates
     * before it in a row range (A, then B, then C), in increasing order */
    uint64_t nrep = 0;
    for (int k = 0; k < 3; k++) {
        for (uint64_t i = 0; i < p->n_rep[k]; i++) {
            const cz_pce_repeat *e = &p->rep[k][i];
            assert_true(i == 0 || p->rep[k][i - 1].row < e->row);
            assert_true(e->row < p->n_constraints && e->back <= e->row);
            assert_true(e->from < k || (e->from == k && e->back > 0));
            const cz_csr *x = mats[e->from], *y = mats[k];
            uint64_t xl = x->row_ptr[e->row - e->back], yl = y->row_ptr[e->row];
            uint64_t len = y->row_ptr[e->row + 1] - yl;
            assert_int_equal(x->row_ptr[e->row - e->back + 1] - xl, len);
            assert_memory_equal(x->col + xl, y->col + yl, len * sizeof(uint32_t));
            assert_memory_equal(x->coef + xl, y->coef + yl, len * sizeof(uint32_t));
        }
        nrep += p->n_rep[k];
    }
    /* one LC in four repeats: from a few hundred rows some are found */
    if (n_cons >= 400) assert_true(nrep > n_cons / 20);
    size_t m = 1;
    while (m < p->n_constraints)
        m <<= 1;
    m += 3; /* padding beyond a power of two is allowed too */
    cz_fr *a = malloc(m * sizeof(cz_fr)), *b = malloc(m * sizeof(cz_fr)), *c = malloc(m * sizeof(cz_fr));
    for (int pi = 0; pi < npools; pi++) {
        memset(a, 0xab, m * sizeof(cz_fr));
        memset(b, 0xab, m * sizeof(cz_fr));
        memset(c, 0xab, m * sizeof(cz_fr));
        cz_witness w;
        assert_int_equal(cz_synthesize(p, rand_synth, &ctx, pools[pi], &w, a, b, c, m), CZ_OK);
        assert_int_equal(w.n_inputs, w0.n_inputs);
        assert_int_equal(w.n_aux, w0.n_aux);
        assert_memory_equal(w.aux, w0.aux, w.n_aux * sizeof(cz_fr));
        for (size_t j = 0; j < n_cons; j++) {
            assert_true(cz_fr_eq(&a[j], &ctx.ra[j]));
            assert_true(cz_fr_eq(&b[j], &ctx.rb[j]));
            assert_true(cz_fr_eq(&c[j], &ctx.rc[j]));
        }
        for (size_t i = 0; i < w.n_inputs; i++) {
            assert_true(cz_fr_eq(&a[n_cons + i], &w.inputs[i]));
            assert_true(cz_fr_is_zero(&b[n_cons + i]));
            assert_true(cz_fr_is_zero(&c[n_cons + i]));
        }
        for (size_t j = p->n_constraints; j < m; j++)
            assert_true(cz_fr_is_zero(&a[j]) && cz_fr_is_zero(&b[j]) && cz_fr_is_zero(&c[j]));
        cz_witness_free(&w);
    }
    free(a);
    free(b);
    free(c);
    cz_witness_free(&w0);
    cz_pce_free(p);
    free(ctx.ra);
    free(ctx.rb);
    free(ctx.rc);
    free(ctx.ref_da);
    free(ctx.ref_db);
    free(ctx.ref_dbi);
    free(ctx.hist);
}

static cz_pool *g_pools[3];

static int setup(void **state)
{
    (void)state;
    g_pools[0] = NULL;
    if (cz_pool_create(&g_pools[1], 1, "t-r1cs") != CZ_OK || cz_pool_create(&g_pools[2], 2, "t-r1cs") != CZ_OK)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cz_pool_destroy(g_pools[1]);
    cz_pool_destroy(g_pools[2]);
    return 0;
}

static void test_random_small(void **state)
{
    (void)state;
    for (size_t n = 1; n <= 40; n += 3)
        run_random(n, g_pools, 3);
}

static void test_random_large(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    run_random(6000, g_pools, 3);
#else
    run_random(30000, g_pools, 3);
#endif
}

/* mulchain through the full path: synthesize, and a·b = c on every row */
static void test_mulchain_synth(void **state)
{
    (void)state;
    cz_mulchain mc = {.n_mul = 10000, .n_extra_inputs = 7};
    cz_fr_from_u64(&mc.x0, 11);
    cz_pce *p = NULL;
    assert_int_equal(cz_pce_record(&p, cz_mulchain_synth, &mc, NULL), CZ_OK);
    size_t m = 16384;
    cz_fr *a = malloc(m * sizeof(cz_fr)), *b = malloc(m * sizeof(cz_fr)), *c = malloc(m * sizeof(cz_fr));
    for (int pi = 0; pi < 3; pi++) {
        cz_witness w;
        assert_int_equal(cz_synthesize(p, cz_mulchain_synth, &mc, g_pools[pi], &w, a, b, c, m), CZ_OK);
        for (size_t j = 0; j < m; j++) {
            cz_fr ab;
            cz_fr_mul(&ab, &a[j], &b[j]);
            assert_true(cz_fr_eq(&ab, &c[j]));
        }
        cz_witness_free(&w);
    }
    free(a);
    free(b);
    free(c);
    cz_pce_free(p);
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_small),
        cmocka_unit_test(test_random_large),
        cmocka_unit_test(test_mulchain_synth),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
