/*
 * Constraint-system core: variable allocation, linear combinations, scopes,
 * sticky errors, and the witness/checker drivers. The recorder's matrix
 * building lives in pce.c.
 *
 * Witness mode is the hot path of proving (PoRep synthesis is dominated by
 * it): there alloc is an amortised array append, enforce is one increment,
 * LCs are inactive (every cz_lc_* call returns on its first branch) and
 * scope pushes never format their arguments.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/big_alloc.h"
#include "r1cs/r1cs_internal.h"

/* Bounded string join that truncates silently (paths and messages are
 * diagnostics; a cut-off tail is acceptable, an overflow is not). */
static void join3(char *dst, size_t cap, const char *a, const char *sep, const char *b)
{
    size_t n = 0;
    const char *parts[3] = {a, sep, b};
    for (int i = 0; i < 3; i++)
        for (const char *q = parts[i]; q && *q && n + 1 < cap; q++)
            dst[n++] = *q;
    dst[n] = '\0';
}

/* ---- shared constants ---------------------------------------------------- */
static cz_fr g_pow2[256];
static cz_fr g_minus_one;
/* small constants ±k (k < 64) used by gadgets' LCs: saves a Montgomery
 * conversion per term while recording */
#define SMALL 64
static cz_fr g_small[SMALL], g_small_neg[SMALL];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_consts(void)
{
    g_pow2[0] = CZ_FR_ONE;
    for (unsigned k = 1; k < 256; k++)
        cz_fr_dbl(&g_pow2[k], &g_pow2[k - 1]);
    cz_fr_neg(&g_minus_one, &CZ_FR_ONE);
    for (unsigned k = 0; k < SMALL; k++) {
        cz_fr_from_u64(&g_small[k], k);
        cz_fr_neg(&g_small_neg[k], &g_small[k]);
    }
}

const cz_fr *cz_fr_pow2(unsigned k)
{
    pthread_once(&g_once, init_consts);
    return &g_pow2[k & 255];
}

static const cz_fr *minus_one(void)
{
    pthread_once(&g_once, init_consts);
    return &g_minus_one;
}

/* ---- cs object ----------------------------------------------------------- */
cz_status cz_cs_init(cz_cs *cs, cz_cs_mode mode, bool values)
{
    memset(cs, 0, sizeof *cs);
    cs->mode = mode;
    cs->values = values;
    cs->want_lc = mode != CZ_CS_WITNESS;
    pthread_once(&g_once, init_consts);
    /* input 0: the constant one (always present, even without values) */
    cs->n_inp = 1;
    if (values) {
        cs->cap_inp = 16;
        cs->inp = malloc(cs->cap_inp * sizeof(cz_fr));
        if (!cs->inp)
            return CZ_ERR_NOMEM;
        cs->inp[0] = CZ_FR_ONE;
    }
    return CZ_OK;
}

void cz_cs_release(cz_cs *cs)
{
    free(cs->inp);
    free(cs->aux);
    cs->inp = cs->aux = NULL;
    cz_rec_release(cs);
}

void cz_cs_set_error(cz_cs *cs, cz_status st, const char *msg)
{
    if (cs->err != CZ_OK || st == CZ_OK)
        return;
    cs->err = st;
    if (cs->mode == CZ_CS_CHECK && cs->path_len)
        join3(cs->errmsg, sizeof cs->errmsg, cs->path, ": ", msg);
    else
        join3(cs->errmsg, sizeof cs->errmsg, msg, NULL, NULL);
}

cz_cs_mode cz_cs_get_mode(const cz_cs *cs) { return cs->mode; }
bool cz_cs_has_values(const cz_cs *cs) { return cs->values; }
bool cz_cs_wants_lc(const cz_cs *cs) { return cs->want_lc; }
size_t cz_cs_num_constraints(const cz_cs *cs) { return cs->n_constraints; }
size_t cz_cs_num_inputs(const cz_cs *cs) { return cs->n_inp; }
size_t cz_cs_num_aux(const cz_cs *cs) { return cs->n_aux; }
cz_status cz_cs_status(const cz_cs *cs) { return cs->err; }
const char *cz_cs_error_message(const cz_cs *cs) { return cs->errmsg; }

void cz_cs_fail(cz_cs *cs, cz_status st, const char *fmt, ...)
{
    if (cs->err != CZ_OK)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cz_cs_set_error(cs, st == CZ_OK ? CZ_ERR_INTERNAL : st, msg);
}

/* Appends one value; returns the new index or -1 after an error. */
static inline int64_t push_value(cz_cs *cs, cz_fr **arr, size_t *n, size_t *cap, const cz_fr *value,
                                 const char *kind)
{
    if (*n >= CZ_VAR_MAX_COUNT) {
        cz_cs_fail(cs, CZ_ERR_UNSUPPORTED, "more than 2^31-1 %s variables", kind);
        return -1;
    }
    if (cs->values) {
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 1024;
            cz_fr *p = realloc(*arr, nc * sizeof(cz_fr));
            if (!p) {
                cz_cs_set_error(cs, CZ_ERR_NOMEM, "out of memory growing the assignment");
                return -1;
            }
            *arr = p;
            *cap = nc;
        }
        const cz_witness *ov = cs->override;
        if (ov && arr == &cs->aux && *n < ov->n_aux) {
            (*arr)[*n] = ov->aux[*n];
        } else if (ov && arr == &cs->inp && *n < ov->n_inputs) {
            (*arr)[*n] = ov->inputs[*n];
        } else if (value) {
            (*arr)[*n] = *value;
        } else {
            (*arr)[*n] = CZ_FR_ZERO;
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "%s variable %zu allocated without a value", kind, *n);
        }
    }
    return (int64_t)(*n)++;
}

void cz_cs_alloc_aux(cz_cs *cs, cz_var *out, const cz_fr *value)
{
    int64_t i = push_value(cs, &cs->aux, &cs->n_aux, &cs->cap_aux, value, "aux");
    *out = cz_var_aux(i < 0 ? 0 : (uint32_t)i);
}

void cz_cs_alloc_input(cz_cs *cs, cz_var *out, const cz_fr *value)
{
    int64_t i = push_value(cs, &cs->inp, &cs->n_inp, &cs->cap_inp, value, "input");
    *out = cz_var_input(i < 0 ? 0 : (uint32_t)i);
}

cz_fr *cz_cs_alloc_aux_n(cz_cs *cs, size_t n, cz_var *first)
{
    *first = cz_var_aux(0);
    if (cs->mode != CZ_CS_WITNESS) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "cz_cs_alloc_aux_n outside witness mode");
        return NULL;
    }
    if (cs->err != CZ_OK)
        return NULL;
    if (n > CZ_VAR_MAX_COUNT - cs->n_aux) {
        cz_cs_fail(cs, CZ_ERR_UNSUPPORTED, "more than 2^31-1 aux variables");
        return NULL;
    }
    if (cs->n_aux + n > cs->cap_aux) {
        size_t nc = cs->cap_aux ? cs->cap_aux : 1024;
        while (nc < cs->n_aux + n)
            nc *= 2;
        cz_fr *p = realloc(cs->aux, nc * sizeof(cz_fr));
        if (!p) {
            cz_cs_set_error(cs, CZ_ERR_NOMEM, "out of memory growing the assignment");
            return NULL;
        }
        cs->aux = p;
        cs->cap_aux = nc;
    }
    *first = cz_var_aux((uint32_t)cs->n_aux);
    cz_fr *slots = cs->aux + cs->n_aux;
    cs->n_aux += n;
    return slots;
}

void cz_cs_count_constraints(cz_cs *cs, size_t n)
{
    if (cs->mode != CZ_CS_WITNESS) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "cz_cs_count_constraints outside witness mode");
        return;
    }
    cs->n_constraints += n;
}

void cz_cs_value(const cz_cs *cs, cz_var v, cz_fr *out)
{
    uint32_t i = cz_var_index(v);
    if (!cs->values) {
        *out = CZ_FR_ZERO;
    } else if (cz_var_is_aux(v)) {
        *out = i < cs->n_aux ? cs->aux[i] : CZ_FR_ZERO;
    } else {
        *out = i < cs->n_inp ? cs->inp[i] : CZ_FR_ZERO;
    }
}

/* ---- scopes -------------------------------------------------------------- */
void cz_cs_push_scope(cz_cs *cs, const char *fmt, ...)
{
    size_t d = cs->depth++;
    if (cs->mode != CZ_CS_CHECK || d >= CZ_CS_MAX_DEPTH)
        return;
    cs->saved[d] = cs->path_len;
    size_t len = cs->path_len;
    if (len && len + 1 < sizeof cs->path)
        cs->path[len++] = '/';
    if (len + 1 < sizeof cs->path) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(cs->path + len, sizeof cs->path - len, fmt, ap);
        va_end(ap);
        if (w > 0)
            len += (size_t)w;
        if (len >= sizeof cs->path)
            len = sizeof cs->path - 1;
    }
    cs->path[len] = '\0';
    cs->path_len = len;
}

void cz_cs_pop_scope(cz_cs *cs)
{
    if (cs->depth == 0) {
        cz_cs_fail(cs, CZ_ERR_INTERNAL, "cz_cs_pop_scope without a matching push");
        return;
    }
    size_t d = --cs->depth;
    if (cs->mode != CZ_CS_CHECK || d >= CZ_CS_MAX_DEPTH)
        return;
    cs->path_len = cs->saved[d];
    cs->path[cs->path_len] = '\0';
}

/* ---- linear combinations ------------------------------------------------- */
void cz_lc_init(cz_lc *lc, const cz_cs *cs)
{
    lc->heap = NULL;
    lc->n = 0;
    lc->cap = CZ_LC_INLINE;
    lc->active = cs->want_lc;
    lc->oom = 0;
}

void cz_lc_free(cz_lc *lc)
{
    free(lc->heap);
    lc->heap = NULL;
    lc->n = 0;
    lc->cap = CZ_LC_INLINE;
    lc->oom = 0;
}

void cz_lc_clear(cz_lc *lc)
{
    lc->n = 0;
    lc->oom = 0;
}

static cz_term *lc_slot(cz_lc *lc)
{
    if (lc->n == lc->cap) {
        if (lc->cap >= (1u << 30)) {
            lc->oom = 1;
            return NULL;
        }
        uint32_t nc = lc->cap * 2;
        cz_term *p;
        if (lc->heap) {
            p = realloc(lc->heap, (size_t)nc * sizeof(cz_term));
        } else {
            p = malloc((size_t)nc * sizeof(cz_term));
            if (p)
                memcpy(p, lc->inl, (size_t)lc->n * sizeof(cz_term));
        }
        if (!p) {
            lc->oom = 1;
            return NULL;
        }
        lc->heap = p;
        lc->cap = nc;
    }
    cz_term *t = (lc->heap ? lc->heap : lc->inl) + lc->n++;
    return t;
}

void cz_lc_add(cz_lc *lc, cz_var v, const cz_fr *coeff)
{
    if (!lc->active)
        return;
    cz_term *t = lc_slot(lc);
    if (t) {
        t->var = v;
        t->coeff = *coeff;
    }
}

void cz_lc_add_var(cz_lc *lc, cz_var v)
{
    if (lc->active)
        cz_lc_add(lc, v, &CZ_FR_ONE);
}

void cz_lc_sub_var(cz_lc *lc, cz_var v)
{
    if (lc->active)
        cz_lc_add(lc, v, minus_one());
}

void cz_lc_add_u64(cz_lc *lc, cz_var v, uint64_t k)
{
    if (!lc->active)
        return;
    if (k < SMALL) { /* the table is initialised: an active LC implies a cs */
        cz_lc_add(lc, v, &g_small[k]);
        return;
    }
    cz_fr c;
    cz_fr_from_u64(&c, k);
    cz_lc_add(lc, v, &c);
}

void cz_lc_sub_u64(cz_lc *lc, cz_var v, uint64_t k)
{
    if (!lc->active)
        return;
    if (k < SMALL) {
        cz_lc_add(lc, v, &g_small_neg[k]);
        return;
    }
    cz_fr c;
    cz_fr_from_u64(&c, k);
    cz_fr_neg(&c, &c);
    cz_lc_add(lc, v, &c);
}

void cz_lc_add_pow2(cz_lc *lc, cz_var v, unsigned k)
{
    if (lc->active)
        cz_lc_add(lc, v, cz_fr_pow2(k));
}

void cz_lc_sub_pow2(cz_lc *lc, cz_var v, unsigned k)
{
    if (!lc->active)
        return;
    cz_fr c;
    cz_fr_neg(&c, cz_fr_pow2(k));
    cz_lc_add(lc, v, &c);
}

void cz_lc_add_const(cz_lc *lc, const cz_fr *c)
{
    if (lc->active)
        cz_lc_add(lc, CZ_VAR_ONE, c);
}

void cz_lc_add_const_u64(cz_lc *lc, uint64_t k)
{
    if (lc->active)
        cz_lc_add_u64(lc, CZ_VAR_ONE, k);
}

void cz_lc_add_lc(cz_lc *lc, const cz_lc *src, const cz_fr *coeff)
{
    if (!lc->active || !src->active)
        return;
    if (src->oom)
        lc->oom = 1;
    size_t n;
    const cz_term *t = cz_lc_terms(src, &n);
    for (size_t i = 0; i < n; i++) {
        if (coeff) {
            cz_fr c;
            cz_fr_mul(&c, &t[i].coeff, coeff);
            cz_lc_add(lc, t[i].var, &c);
        } else {
            cz_lc_add(lc, t[i].var, &t[i].coeff);
        }
    }
}

void cz_lc_eval(const cz_cs *cs, const cz_lc *lc, cz_fr *out)
{
    *out = CZ_FR_ZERO;
    if (!cs->values || !lc || !lc->active)
        return;
    size_t n;
    const cz_term *t = cz_lc_terms(lc, &n);
    for (size_t i = 0; i < n; i++) {
        cz_fr v, p;
        cz_cs_value(cs, t[i].var, &v);
        cz_fr_mul(&p, &v, &t[i].coeff);
        cz_fr_add(out, out, &p);
    }
}

/* ---- enforce ------------------------------------------------------------- */
static bool lc_vars_valid(const cz_cs *cs, const cz_lc *lc)
{
    size_t n;
    const cz_term *t = cz_lc_terms(lc, &n);
    for (size_t i = 0; i < n; i++) {
        uint32_t ix = cz_var_index(t[i].var);
        if (cz_var_is_aux(t[i].var) ? ix >= cs->n_aux : ix >= cs->n_inp)
            return false;
    }
    return true;
}

void cz_cs_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c, const char *name)
{
    if (cs->mode == CZ_CS_WITNESS) {
        cs->n_constraints++;
        return;
    }
    if (cs->err != CZ_OK) {
        cs->n_constraints++;
        return;
    }
    const cz_lc *lcs[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        if (!lcs[k])
            continue;
        if (lcs[k]->oom) {
            cz_cs_set_error(cs, CZ_ERR_NOMEM, "out of memory building a linear combination");
            return;
        }
        if (!lcs[k]->active) {
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "linear combination not initialised for this cs");
            return;
        }
        if (!lc_vars_valid(cs, lcs[k])) {
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "constraint %zu uses an unallocated variable",
                       cs->n_constraints);
            return;
        }
    }
    if (cs->mode == CZ_CS_RECORD) {
        if (cs->sink)
            cs->sink(cs, cs->sink_ctx, lcs);
        else
            cz_rec_enforce(cs, lcs);
    } else if (!cs->failed) { /* checker */
        cz_fr va, vb, vc, ab;
        cz_lc_eval(cs, a, &va);
        cz_lc_eval(cs, b, &vb);
        cz_lc_eval(cs, c, &vc);
        cz_fr_mul(&ab, &va, &vb);
        if (!cz_fr_eq(&ab, &vc)) {
            cs->failed = true;
            cs->first_fail = cs->n_constraints;
            char nb[32];
            if (!name) {
                snprintf(nb, sizeof nb, "#%zu", cs->n_constraints);
                name = nb;
            }
            if (cs->path_len)
                join3(cs->where, sizeof cs->where, cs->path, "/", name);
            else
                join3(cs->where, sizeof cs->where, name, NULL, NULL);
        }
    }
    cs->n_constraints++;
}

/* ---- drivers ------------------------------------------------------------- */
static cz_status run_synth(cz_cs *cs, cz_synth_fn synth, const void *ctx)
{
    cz_status st = synth(cs, ctx);
    if (cs->err != CZ_OK)
        return cs->err;
    if (st != CZ_OK)
        return st;
    if (cs->depth != 0) {
        cz_cs_fail(cs, CZ_ERR_INTERNAL, "circuit left %zu scope(s) open", cs->depth);
        return cs->err;
    }
    return CZ_OK;
}

cz_status cz_cs_run_synth(cz_cs *cs, cz_synth_fn synth, const void *ctx) { return run_synth(cs, synth, ctx); }

static cz_status take_values(cz_cs *cs, cz_witness *out)
{
    memset(out, 0, sizeof *out);
    /* shrink to fit; keep at least one element so the pointers are non-NULL */
    cz_fr *inp = realloc(cs->inp, (cs->n_inp ? cs->n_inp : 1) * sizeof(cz_fr));
    if (inp)
        cs->inp = inp;
    if (cs->aux) {
        cz_fr *aux = realloc(cs->aux, (cs->n_aux ? cs->n_aux : 1) * sizeof(cz_fr));
        if (aux)
            cs->aux = aux;
    } else {
        cs->aux = malloc(sizeof(cz_fr));
        if (!cs->aux)
            return CZ_ERR_NOMEM;
    }
    out->inputs = cs->inp;
    out->aux = cs->aux;
    out->n_inputs = cs->n_inp;
    out->n_aux = cs->n_aux;
    out->n_constraints = cs->n_constraints + cs->n_inp;
    cs->inp = cs->aux = NULL;
    return CZ_OK;
}

cz_status cz_witness_generate(cz_witness *out, cz_synth_fn synth, const void *ctx, const cz_pce *shape)
{
    if (!out || !synth)
        return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    cz_cs cs;
    cz_status st = cz_cs_init(&cs, CZ_CS_WITNESS, true);
    if (st == CZ_OK && shape) {
        /* pre-size from the recorded counts: no reallocation on the hot path */
        if (shape->n_inputs > CZ_VAR_MAX_COUNT || shape->n_aux > CZ_VAR_MAX_COUNT) {
            st = CZ_ERR_INVALID_ARG;
        } else {
            cz_fr *p = realloc(cs.inp, (size_t)(shape->n_inputs ? shape->n_inputs : 1) * sizeof(cz_fr));
            if (p) {
                cs.inp = p;
                cs.cap_inp = shape->n_inputs ? shape->n_inputs : 1;
            }
            if (shape->n_aux) {
                cs.aux = cz_big_alloc_array(shape->n_aux, sizeof(cz_fr));
                if (cs.aux)
                    cs.cap_aux = shape->n_aux;
            }
            if (!p || (shape->n_aux && !cs.aux))
                st = CZ_ERR_NOMEM;
        }
    }
    if (st == CZ_OK)
        st = run_synth(&cs, synth, ctx);
    if (st == CZ_OK && shape &&
        (cs.n_inp != shape->n_inputs || cs.n_aux != shape->n_aux ||
         cs.n_constraints != shape->n_circuit_constraints))
        st = CZ_ERR_MISMATCH;
    if (st == CZ_OK)
        st = take_values(&cs, out);
    cz_cs_release(&cs);
    return st;
}

void cz_witness_free(cz_witness *w)
{
    if (!w)
        return;
    free(w->inputs);
    free(w->aux);
    memset(w, 0, sizeof *w);
}

static cz_status check_impl(cz_synth_fn synth, const void *ctx, const cz_witness *w, cz_check_report *rep)
{
    if (!synth)
        return CZ_ERR_INVALID_ARG;
    cz_cs cs;
    cz_status st = cz_cs_init(&cs, CZ_CS_CHECK, true);
    if (st == CZ_OK && w) {
        cs.override = w;
        if (w->n_inputs >= 1)
            cs.inp[0] = w->inputs[0];
    }
    if (st == CZ_OK)
        st = run_synth(&cs, synth, ctx);
    if (st == CZ_OK && w && (cs.n_inp != w->n_inputs || cs.n_aux != w->n_aux)) {
        cz_cs_fail(&cs, CZ_ERR_MISMATCH, "witness has %zu inputs / %zu aux, circuit %zu / %zu", w->n_inputs,
                   w->n_aux, cs.n_inp, cs.n_aux);
        st = cs.err;
    }
    /* the appended rows x_i · 0 = 0 always hold: nothing to check */
    if (rep) {
        memset(rep, 0, sizeof *rep);
        rep->satisfied = st == CZ_OK && !cs.failed;
        rep->first_failure = cs.first_fail;
        if (st != CZ_OK)
            join3(rep->where, sizeof rep->where, cs.errmsg, NULL, NULL);
        else if (cs.failed)
            memcpy(rep->where, cs.where, sizeof rep->where);
        rep->n_constraints = cs.n_constraints + cs.n_inp;
        rep->n_inputs = cs.n_inp;
        rep->n_aux = cs.n_aux;
    }
    if (st == CZ_OK && cs.failed)
        st = CZ_ERR_UNSATISFIED;
    cz_cs_release(&cs);
    return st;
}

cz_status cz_cs_check(cz_synth_fn synth, const void *ctx, cz_check_report *rep)
{
    return check_impl(synth, ctx, NULL, rep);
}

cz_status cz_cs_check_witness(cz_synth_fn synth, const void *ctx, const cz_witness *w, cz_check_report *rep)
{
    if (!w)
        return CZ_ERR_INVALID_ARG;
    return check_impl(synth, ctx, w, rep);
}

cz_status cz_pce_record(cz_pce **out, cz_synth_fn synth, const void *ctx, cz_witness *w_out)
{
    if (!out || !synth)
        return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (w_out)
        memset(w_out, 0, sizeof *w_out);
    cz_cs cs;
    cz_status st = cz_cs_init(&cs, CZ_CS_RECORD, w_out != NULL);
    if (st == CZ_OK)
        st = run_synth(&cs, synth, ctx);
    cz_pce *pce = NULL;
    if (st == CZ_OK)
        st = cz_rec_finish(&cs, &pce);
    if (st == CZ_OK && w_out) {
        st = take_values(&cs, w_out);
        if (st != CZ_OK) {
            cz_pce_free(pce);
            pce = NULL;
        }
    }
    cz_cs_release(&cs);
    *out = pce;
    return st;
}
