/*
 * The R1CS fingerprint of bellpepper-core 0.2 TestConstraintSystem::hash()
 * (include/cuzk/r1cs_hash.h), from a recording or streamed from a synth
 * function, and the raw JSON dump the independent Python implementation
 * (tools/r1cs_fingerprint.py) reads.
 *
 * Normalisation is the reference's proc_lc: a BTreeMap keyed by variable
 * with Input < Aux and ascending index inside each kind, coefficients
 * summed per key, zero sums removed. cuzk's cz_var orders the same way as a
 * u32 (aux has bit 31 set), so sorting by the raw id and merging equal
 * neighbours gives the reference's order.
 */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/r1cs_hash.h"
#include "r1cs/r1cs_internal.h"

/* ---- BLAKE2s-256 byte sink ------------------------------------------------
 * Terms are 41 bytes; buffering keeps the EVP call overhead off the
 * per-term path. */
#define HBUF 8192

typedef struct {
    EVP_MD_CTX *md;
    bool ok;
    size_t n;
    uint8_t buf[HBUF];
} hasher;

static bool hasher_init(hasher *h)
{
    h->n = 0;
    h->md = EVP_MD_CTX_new();
    h->ok = h->md && EVP_DigestInit_ex(h->md, EVP_blake2s256(), NULL) == 1;
    return h->ok;
}

static void hasher_flush(hasher *h)
{
    if (h->ok && h->n && EVP_DigestUpdate(h->md, h->buf, h->n) != 1)
        h->ok = false;
    h->n = 0;
}

static inline void hasher_put(hasher *h, const void *p, size_t len)
{
    if (h->n + len > HBUF)
        hasher_flush(h);
    memcpy(h->buf + h->n, p, len);
    h->n += len;
}

static inline void put_be64(uint8_t *dst, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        dst[i] = (uint8_t)v;
        v >>= 8;
    }
}

static inline void hasher_u64(hasher *h, uint64_t v)
{
    uint8_t b[8];
    put_be64(b, v);
    hasher_put(h, b, 8);
}

/* One normalised term: 'I'/'A', index u64 BE, coefficient 32 B BE. */
static inline void hasher_term(hasher *h, cz_var v, const uint8_t coeff_be[32])
{
    uint8_t b[41];
    b[0] = cz_var_is_aux(v) ? 'A' : 'I';
    put_be64(b + 1, cz_var_index(v));
    memcpy(b + 9, coeff_be, 32);
    hasher_put(h, b, sizeof b);
}

/* Finishes into out[32]; false (and out zeroed) if OpenSSL failed. */
static bool hasher_final(hasher *h, uint8_t out[32])
{
    hasher_flush(h);
    unsigned len = 32;
    bool ok = h->ok && EVP_DigestFinal_ex(h->md, out, &len) == 1 && len == 32;
    EVP_MD_CTX_free(h->md);
    h->md = NULL;
    if (!ok)
        memset(out, 0, 32);
    return ok;
}

static void hasher_abort(hasher *h)
{
    EVP_MD_CTX_free(h->md);
    h->md = NULL;
}

/* The three counts that open the hash (TestConstraintSystem::hash order:
 * inputs, aux, constraints). */
static void hasher_header(hasher *h, uint64_t inputs, uint64_t aux, uint64_t constraints)
{
    hasher_u64(h, inputs);
    hasher_u64(h, aux);
    hasher_u64(h, constraints);
}

void cz_r1cs_fingerprint_hex(const cz_r1cs_fingerprint *fp, char out[65])
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hx[fp->digest[i] >> 4];
        out[2 * i + 1] = hx[fp->digest[i] & 15];
    }
    out[64] = '\0';
}

/* ---- from a recording ------------------------------------------------------ */
/* The recorder's rows are normalised by construction (pce.c rec_row) and a
 * loaded PCE is checked by the parser; the fingerprint still refuses a row
 * that is not, rather than hash something the reference never would. */
static bool row_normalised(const cz_pce *p, const cz_csr *m, uint64_t r, const bool *coef_zero)
{
    for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
        if (m->coef[k] >= p->n_coeffs || coef_zero[m->coef[k]])
            return false;
        if (k > m->row_ptr[r] && m->col[k] <= m->col[k - 1])
            return false;
    }
    return true;
}

cz_status cz_r1cs_fingerprint_pce(const cz_pce *p, cz_r1cs_fingerprint *out)
{
    if (!p || !out || p->n_constraints != p->n_circuit_constraints + p->n_inputs)
        return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    const cz_csr *m[3] = {&p->a, &p->b, &p->c};
    /* coefficient table as the hash writes it, converted once */
    size_t nc = p->n_coeffs ? p->n_coeffs : 1;
    uint8_t *be = malloc(nc * 32);
    bool *zero = calloc(nc, sizeof(bool));
    hasher *h = malloc(sizeof *h);
    if (!be || !zero || !h) {
        free(be);
        free(zero);
        free(h);
        return CZ_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < p->n_coeffs; i++) {
        cz_fr_to_bytes_be(be + 32 * (size_t)i, &p->coeffs[i]);
        zero[i] = cz_fr_is_zero(&p->coeffs[i]);
    }
    cz_status st = CZ_OK;
    const uint64_t rows = p->n_circuit_constraints;
    if (!hasher_init(h)) {
        st = CZ_ERR_INTERNAL;
        goto done;
    }
    hasher_header(h, p->n_inputs, p->n_aux, rows);
    for (uint64_t r = 0; r < rows && st == CZ_OK; r++) {
        for (int k = 0; k < 3; k++) {
            if (!row_normalised(p, m[k], r, zero)) {
                st = CZ_ERR_INVALID_ARG;
                break;
            }
            uint64_t b = m[k]->row_ptr[r], e = m[k]->row_ptr[r + 1];
            hasher_u64(h, e - b);
            for (uint64_t t = b; t < e; t++)
                hasher_term(h, m[k]->col[t], be + 32 * (size_t)m[k]->coef[t]);
        }
    }
    if (st != CZ_OK) {
        hasher_abort(h);
        goto done;
    }
    if (!hasher_final(h, out->digest)) {
        st = CZ_ERR_INTERNAL;
        goto done;
    }
    out->constraints = rows;
    out->inputs = p->n_inputs;
    out->aux = p->n_aux;
    out->nnz_a = p->a.row_ptr[rows];
    out->nnz_b = p->b.row_ptr[rows];
    out->nnz_c = p->c.row_ptr[rows];
    out->nnz_a_with_input_rows = out->nnz_a + p->n_inputs;
done:
    free(be);
    free(zero);
    free(h);
    if (st != CZ_OK)
        memset(out, 0, sizeof *out);
    return st;
}

/* ---- streaming --------------------------------------------------------------- */
typedef enum { PASS_COUNT, PASS_HASH, PASS_DUMP } pass_kind;

typedef struct {
    pass_kind kind;
    hasher *h;               /* PASS_HASH */
    FILE *f;                 /* PASS_DUMP */
    bool io_err;
    uint64_t rows;           /* constraints seen by this sink */
    cz_term *buf;            /* normalisation scratch: one LC */
    size_t cap, max_terms;
    uint64_t nnz[3];
    cz_fr minus_one;
    uint8_t one_be[32], minus_one_be[32];
} fp_sink;

static void sink_init(fp_sink *s, pass_kind kind)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    cz_fr_neg(&s->minus_one, &CZ_FR_ONE);
    cz_fr_to_bytes_be(s->one_be, &CZ_FR_ONE);
    cz_fr_to_bytes_be(s->minus_one_be, &s->minus_one);
}

/* Copies lc's terms into the scratch buffer and normalises them there as
 * proc_lc does; returns the number of terms left, or SIZE_MAX when the
 * buffer cannot grow. */
static size_t normalise(fp_sink *s, const cz_lc *lc)
{
    size_t n = 0;
    const cz_term *src = lc ? cz_lc_terms(lc, &n) : NULL;
    if (n > s->max_terms)
        s->max_terms = n;
    if (n > s->cap) {
        size_t nc = s->cap ? s->cap : 64;
        while (nc < n)
            nc *= 2;
        cz_term *b = realloc(s->buf, nc * sizeof(cz_term));
        if (!b)
            return SIZE_MAX;
        s->buf = b;
        s->cap = nc;
    }
    cz_term *t = s->buf;
    if (n)
        memcpy(t, src, n * sizeof(cz_term));
    return cz__terms_normalize(t, n); /* the recorder's rule, = proc_lc */
}

static inline const uint8_t *coeff_be(const fp_sink *s, const cz_fr *c, uint8_t tmp[32])
{
    if (cz_fr_eq(c, &CZ_FR_ONE))
        return s->one_be;
    if (cz_fr_eq(c, &s->minus_one))
        return s->minus_one_be;
    cz_fr_to_bytes_be(tmp, c);
    return tmp;
}

static void sink_hash(cz_cs *cs, void *vs, const cz_lc *lcs[3])
{
    fp_sink *s = vs;
    s->rows++;
    for (int k = 0; k < 3; k++) {
        size_t n = normalise(s, lcs[k]);
        if (n == SIZE_MAX) {
            cz_cs_set_error(cs, CZ_ERR_NOMEM, "out of memory normalising a linear combination");
            return;
        }
        s->nnz[k] += n;
        hasher_u64(s->h, n);
        for (size_t i = 0; i < n; i++) {
            uint8_t tmp[32];
            hasher_term(s->h, s->buf[i].var, coeff_be(s, &s->buf[i].coeff, tmp));
        }
    }
}

static void sink_count(cz_cs *cs, void *vs, const cz_lc *lcs[3])
{
    (void)cs;
    (void)lcs;
    ((fp_sink *)vs)->rows++;
}

/* Canonical hex without leading zeros ("0" for zero). */
static void coeff_hex(char out[65], const cz_fr *c)
{
    static const char hx[] = "0123456789abcdef";
    uint8_t b[32];
    cz_fr_to_bytes_be(b, c);
    size_t n = 0;
    for (int i = 0; i < 64; i++) {
        unsigned d = (b[i / 2] >> (i % 2 ? 0 : 4)) & 15;
        if (d || n || i == 63)
            out[n++] = hx[d];
    }
    out[n] = '\0';
}

static void sink_dump(cz_cs *cs, void *vs, const cz_lc *lcs[3])
{
    (void)cs;
    fp_sink *s = vs;
    FILE *f = s->f;
    int bad = fputs(s->rows ? ",\n[" : "\n[", f) < 0;
    for (int k = 0; k < 3; k++) {
        size_t n = 0;
        const cz_term *t = lcs[k] ? cz_lc_terms(lcs[k], &n) : NULL;
        bad |= fputs(k ? ",[" : "[", f) < 0;
        for (size_t i = 0; i < n; i++) {
            char hx[65];
            coeff_hex(hx, &t[i].coeff);
            bad |= fprintf(f, "%s[\"%c\",%u,\"%s\"]", i ? "," : "", cz_var_is_aux(t[i].var) ? 'A' : 'I',
                           cz_var_index(t[i].var), hx) < 0;
        }
        bad |= fputc(']', f) == EOF;
    }
    bad |= fputc(']', f) == EOF;
    if (bad && !s->io_err) {
        s->io_err = true;
        cz_cs_set_error(cs, CZ_ERR_IO, "write error in the R1CS dump");
    }
    s->rows++;
}

/* Bytes held by the cs's own growable buffers: the recorder's matrices,
 * coefficient table and scratch, and the assignment arrays. */
static size_t cs_buffer_bytes(const cz_cs *cs)
{
    size_t b = (cs->cap_inp + cs->cap_aux) * sizeof(cz_fr);
    for (int k = 0; k < 3; k++)
        b += cs->mat[k].row_cap * sizeof(uint64_t) + cs->mat[k].nnz_cap * 2 * sizeof(uint32_t);
    b += (size_t)cs->coefs.cap * sizeof(cz_fr) + cs->coefs.nslots * sizeof(uint32_t);
    b += cs->scratch_cap * sizeof(cz_term);
    return b;
}

/* One shape-only recorder pass with the sink; counts[] = constraints,
 * inputs, aux. */
static cz_status stream_pass(cz_synth_fn synth, const void *ctx, fp_sink *s, cz_cs_sink_fn fn, uint64_t counts[3],
                             size_t *matrix_bytes)
{
    cz_cs *cs = malloc(sizeof *cs); /* ~3 KB: keep it off small thread stacks */
    if (!cs)
        return CZ_ERR_NOMEM;
    cz_status st = cz_cs_init(cs, CZ_CS_RECORD, false);
    if (st == CZ_OK) {
        cs->sink = fn;
        cs->sink_ctx = s;
        st = cz_cs_run_synth(cs, synth, ctx);
    }
    if (st == CZ_OK && s->rows != cs->n_constraints)
        st = CZ_ERR_INTERNAL; /* every enforce must have reached the sink */
    counts[0] = cs->n_constraints;
    counts[1] = cs->n_inp;
    counts[2] = cs->n_aux;
    if (matrix_bytes)
        *matrix_bytes = cs_buffer_bytes(cs);
    cz_cs_release(cs);
    free(cs);
    return st;
}

cz_status cz_r1cs_count_stream(cz_synth_fn synth, const void *ctx, cz_r1cs_fingerprint *out)
{
    if (!synth || !out)
        return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    fp_sink s;
    sink_init(&s, PASS_COUNT);
    uint64_t c[3];
    cz_status st = stream_pass(synth, ctx, &s, sink_count, c, NULL);
    if (st != CZ_OK)
        return st;
    out->constraints = c[0];
    out->inputs = c[1];
    out->aux = c[2];
    return CZ_OK;
}

cz_status cz_r1cs_fingerprint_stream(cz_synth_fn synth, const void *ctx, cz_r1cs_fingerprint *out,
                                     cz_r1cs_stream_stats *stats)
{
    if (!synth || !out)
        return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (stats)
        memset(stats, 0, sizeof *stats);
    /* pass 1: the counts that open the hash */
    cz_r1cs_fingerprint cnt;
    cz_status st = cz_r1cs_count_stream(synth, ctx, &cnt);
    if (st != CZ_OK)
        return st;
    /* pass 2: hash each constraint as it is enforced */
    hasher *h = malloc(sizeof *h);
    if (!h)
        return CZ_ERR_NOMEM;
    if (!hasher_init(h)) {
        hasher_abort(h);
        free(h);
        return CZ_ERR_INTERNAL;
    }
    hasher_header(h, cnt.inputs, cnt.aux, cnt.constraints);
    fp_sink s;
    sink_init(&s, PASS_HASH);
    s.h = h;
    uint64_t c[3];
    size_t mb = 0;
    st = stream_pass(synth, ctx, &s, sink_hash, c, &mb);
    if (st == CZ_OK && (c[0] != cnt.constraints || c[1] != cnt.inputs || c[2] != cnt.aux))
        st = CZ_ERR_MISMATCH; /* the circuit's shape changed between passes */
    if (st == CZ_OK) {
        if (!hasher_final(h, out->digest))
            st = CZ_ERR_INTERNAL;
    } else {
        hasher_abort(h);
    }
    free(h);
    if (stats) {
        stats->matrix_bytes = mb;
        stats->scratch_bytes = s.cap * sizeof(cz_term);
        stats->max_lc_terms = s.max_terms;
    }
    free(s.buf);
    if (st != CZ_OK) {
        memset(out, 0, sizeof *out);
        return st;
    }
    out->constraints = cnt.constraints;
    out->inputs = cnt.inputs;
    out->aux = cnt.aux;
    out->nnz_a = s.nnz[0];
    out->nnz_b = s.nnz[1];
    out->nnz_c = s.nnz[2];
    out->nnz_a_with_input_rows = s.nnz[0] + cnt.inputs;
    return CZ_OK;
}

cz_status cz_r1cs_dump_json(cz_synth_fn synth, const void *ctx, FILE *f)
{
    if (!synth || !f)
        return CZ_ERR_INVALID_ARG;
    if (fputs("{\"format\":\"cuzk-r1cs-raw-v1\",\n\"rows\":[", f) < 0)
        return CZ_ERR_IO;
    fp_sink s;
    sink_init(&s, PASS_DUMP);
    s.f = f;
    uint64_t c[3];
    cz_status st = stream_pass(synth, ctx, &s, sink_dump, c, NULL);
    if (st != CZ_OK)
        return st;
    if (fprintf(f, "\n],\n\"inputs\":%llu,\"aux\":%llu,\"constraints\":%llu}\n", (unsigned long long)c[1],
                (unsigned long long)c[2], (unsigned long long)c[0]) < 0 ||
        fflush(f) != 0 || ferror(f))
        return CZ_ERR_IO;
    return CZ_OK;
}
