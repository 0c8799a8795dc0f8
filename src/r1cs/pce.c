/*
 * The recorder back-end and the PCE object: building CSR matrices from
 * enforce calls (terms merged, zeros dropped, coefficients interned),
 * density, the circuit hash, and the versioned checksummed file format
 * (see include/cuzk/circuit.h for the layout).
 */
#include <errno.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "r1cs/r1cs_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PCE file writer assumes a little-endian host"
#endif

/* ---- coefficient interning ----------------------------------------------- */
static inline uint64_t coef_hash(const cz_fr *c)
{
    uint64_t h = c->l[0] ^ (c->l[1] * 0x9e3779b97f4a7c15ull) ^ (c->l[2] * 0xc2b2ae3d27d4eb4full) ^
                 (c->l[3] * 0x165667b19e3779f9ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}

static cz_status coef_grow_slots(cz_coef_table *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 256;
    uint32_t *s = calloc(ns, sizeof(uint32_t));
    if (!s)
        return CZ_ERR_NOMEM;
    for (uint32_t i = 0; i < t->n; i++) {
        size_t h = coef_hash(&t->vals[i]) & (ns - 1);
        while (s[h])
            h = (h + 1) & (ns - 1);
        s[h] = i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
    return CZ_OK;
}

/* Returns the id of c (interning it), or UINT32_MAX on allocation failure. */
static uint32_t coef_intern(cz_coef_table *t, const cz_fr *c)
{
    /* fast paths: ids 0 and 1 are 1 and -1 (put there by the first calls) */
    if (t->n >= 2) {
        if (cz_fr_eq(c, &t->vals[0]))
            return 0;
        if (cz_fr_eq(c, &t->vals[1]))
            return 1;
    }
    if ((size_t)(t->n + 1) * 2 > t->nslots && coef_grow_slots(t) != CZ_OK)
        return UINT32_MAX;
    size_t h = coef_hash(c) & (t->nslots - 1);
    while (t->slots[h]) {
        uint32_t id = t->slots[h] - 1;
        if (cz_fr_eq(&t->vals[id], c))
            return id;
        h = (h + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        if (t->cap >= (1u << 30))
            return UINT32_MAX;
        uint32_t nc = t->cap ? t->cap * 2 : 64;
        cz_fr *v = realloc(t->vals, (size_t)nc * sizeof(cz_fr));
        if (!v)
            return UINT32_MAX;
        t->vals = v;
        t->cap = nc;
    }
    t->vals[t->n] = *c;
    t->slots[h] = t->n + 1;
    return t->n++;
}

/* ---- recorder ------------------------------------------------------------ */
static bool builder_reserve(cz_csr_builder *m, size_t extra_nnz)
{
    if (m->rows + 2 > m->row_cap) {
        size_t nc = m->row_cap ? m->row_cap * 2 : 1024;
        uint64_t *p = realloc(m->row_ptr, nc * sizeof(uint64_t));
        if (!p)
            return false;
        m->row_ptr = p;
        m->row_cap = nc;
        if (m->rows == 0)
            m->row_ptr[0] = 0;
    }
    if (m->nnz + extra_nnz > m->nnz_cap) {
        size_t nc = m->nnz_cap ? m->nnz_cap * 2 : 4096;
        while (nc < m->nnz + extra_nnz)
            nc *= 2;
        uint32_t *c = realloc(m->col, nc * sizeof(uint32_t));
        if (!c)
            return false;
        m->col = c;
        uint32_t *k = realloc(m->coef, nc * sizeof(uint32_t));
        if (!k)
            return false;
        m->coef = k;
        m->nnz_cap = nc;
    }
    return true;
}

static int term_cmp(const void *x, const void *y)
{
    cz_var a = ((const cz_term *)x)->var, b = ((const cz_term *)y)->var;
    return (a > b) - (a < b);
}

size_t cz__terms_normalize(cz_term *t, size_t n)
{
    /* Order among equal variables does not matter: their coefficients are
     * summed. Short LCs (most of them) by insertion, long ones (packing
     * sums of hundreds of bits) by qsort. */
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            cz_term x = t[i];
            size_t j = i;
            while (j > 0 && t[j - 1].var > x.var) {
                t[j] = t[j - 1];
                j--;
            }
            t[j] = x;
        }
    } else {
        qsort(t, n, sizeof(cz_term), term_cmp);
    }
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        cz_term acc = t[i];
        size_t j = i + 1;
        while (j < n && t[j].var == acc.var) {
            cz_fr_add(&acc.coeff, &acc.coeff, &t[j].coeff);
            j++;
        }
        if (!cz_fr_is_zero(&acc.coeff))
            t[out++] = acc;
        i = j;
    }
    return out;
}

/* Sorts, merges duplicates, drops zeros; appends one row to m. */
static bool rec_row(cz_cs *cs, cz_csr_builder *m, const cz_lc *lc)
{
    size_t n = 0;
    const cz_term *src = lc ? cz_lc_terms(lc, &n) : NULL;
    if (n > cs->scratch_cap) {
        size_t nc = cs->scratch_cap ? cs->scratch_cap : 64;
        while (nc < n)
            nc *= 2;
        cz_term *s = realloc(cs->scratch, nc * sizeof(cz_term));
        if (!s)
            return false;
        cs->scratch = s;
        cs->scratch_cap = nc;
    }
    if (!builder_reserve(m, n))
        return false;
    cz_term *t = cs->scratch;
    if (n)
        memcpy(t, src, n * sizeof(cz_term));
    n = cz__terms_normalize(t, n);
    size_t out = m->nnz;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = coef_intern(&cs->coefs, &t[i].coeff);
        if (id == UINT32_MAX)
            return false;
        m->col[out] = t[i].var;
        m->coef[out] = id;
        out++;
    }
    m->nnz = out;
    m->row_ptr[++m->rows] = out;
    return true;
}

/* Reserves coefficient ids 0 = 1 and 1 = -1 (SpMV's multiply-free cases). */
static bool rec_init_coefs(cz_cs *cs)
{
    if (cs->coefs.n != 0)
        return true;
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    if (coef_intern(&cs->coefs, &CZ_FR_ONE) != 0 || coef_intern(&cs->coefs, &m1) != 1) {
        cz_cs_set_error(cs, CZ_ERR_NOMEM, "out of memory in the coefficient table");
        return false;
    }
    return true;
}

void cz_rec_enforce(cz_cs *cs, const cz_lc *lcs[3])
{
    if (!rec_init_coefs(cs))
        return;
    for (int k = 0; k < 3; k++) {
        if (!rec_row(cs, &cs->mat[k], lcs[k])) {
            cz_cs_set_error(cs, CZ_ERR_NOMEM, "out of memory recording the constraint matrices");
            return;
        }
    }
}

void cz_rec_release(cz_cs *cs)
{
    for (int k = 0; k < 3; k++) {
        free(cs->mat[k].row_ptr);
        free(cs->mat[k].col);
        free(cs->mat[k].coef);
        memset(&cs->mat[k], 0, sizeof cs->mat[k]);
    }
    free(cs->coefs.vals);
    free(cs->coefs.slots);
    memset(&cs->coefs, 0, sizeof cs->coefs);
    free(cs->scratch);
    cs->scratch = NULL;
    cs->scratch_cap = 0;
}

static void *shrink(void *p, size_t bytes)
{
    if (!bytes)
        bytes = 1;
    void *q = realloc(p, bytes);
    return q ? q : p;
}

cz_status cz_rec_finish(cz_cs *cs, cz_pce **out)
{
    *out = NULL;
    /* a circuit with no constraint still needs the fixed coefficient ids */
    if (!rec_init_coefs(cs))
        return cs->err;
    /* appended rows: x_i · 0 = 0 for every input (A row = x_i) */
    for (size_t i = 0; i < cs->n_inp; i++) {
        for (int k = 0; k < 3; k++) {
            cz_csr_builder *m = &cs->mat[k];
            if (!builder_reserve(m, 1))
                return CZ_ERR_NOMEM;
            if (k == 0) {
                m->col[m->nnz] = cz_var_input((uint32_t)i);
                m->coef[m->nnz] = CZ_PCE_COEF_ONE;
                m->nnz++;
            }
            m->row_ptr[++m->rows] = m->nnz;
        }
    }
    cz_pce *p = calloc(1, sizeof *p);
    if (!p)
        return CZ_ERR_NOMEM;
    p->n_circuit_constraints = cs->n_constraints;
    p->n_constraints = cs->n_constraints + cs->n_inp;
    p->n_inputs = cs->n_inp;
    p->n_aux = cs->n_aux;
    cz_csr *dst[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++) {
        cz_csr_builder *m = &cs->mat[k];
        dst[k]->row_ptr = shrink(m->row_ptr, (m->rows + 1) * sizeof(uint64_t));
        dst[k]->col = shrink(m->col, m->nnz * sizeof(uint32_t));
        dst[k]->coef = shrink(m->coef, m->nnz * sizeof(uint32_t));
        dst[k]->nnz = m->nnz;
        memset(m, 0, sizeof *m);
    }
    p->coeffs = shrink(cs->coefs.vals, (size_t)cs->coefs.n * sizeof(cz_fr));
    p->n_coeffs = cs->coefs.n;
    cs->coefs.vals = NULL;
    cs->coefs.n = cs->coefs.cap = 0;
    cz_status st = cz_pce_compute_density(p);
    if (st == CZ_OK) st = cz_pce_compute_repeats(p);
    if (st != CZ_OK) {
        cz_pce_free(p);
        return st;
    }
    cz_pce_compute_hash(p, p->circuit_hash);
    *out = p;
    return CZ_OK;
}

/* ---- PCE object ---------------------------------------------------------- */
/* The repeated-row lists (below, "repeated rows") freed and emptied. */
static void repeats_clear(cz_pce *p)
{
    for (int k = 0; k < 3; k++) {
        free(p->rep[k]);
        p->rep[k] = NULL;
        p->n_rep[k] = 0;
    }
}

void cz_pce_free(cz_pce *p)
{
    if (!p)
        return;
    cz_csr *m[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++) {
        free(m[k]->row_ptr);
        free(m[k]->col);
        free(m[k]->coef);
    }
    free(p->coeffs);
    free(p->dens_a_aux);
    free(p->dens_b_aux);
    free(p->dens_b_input);
    repeats_clear(p);
    free(p);
}

static inline size_t words(uint64_t bits) { return (size_t)((bits + 63) / 64); }

size_t cz_pce_bytes(const cz_pce *p)
{
    size_t b = sizeof *p + (size_t)p->n_coeffs * sizeof(cz_fr);
    b += 3 * (size_t)(p->n_constraints + 1) * 8;
    b += (size_t)(p->a.nnz + p->b.nnz + p->c.nnz) * 8;
    b += (2 * words(p->n_aux) + words(p->n_inputs)) * 8;
    b += (size_t)(p->n_rep[0] + p->n_rep[1] + p->n_rep[2]) * sizeof(cz_pce_repeat);
    return b;
}

void cz_pce_hash_hex(const cz_pce *p, char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", p->circuit_hash[i]);
}

static uint64_t popcount_words(const uint64_t *w, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += (uint64_t)__builtin_popcountll(w[i]);
    return c;
}

cz_status cz_pce_compute_density(cz_pce *p)
{
    size_t wa = words(p->n_aux), wi = words(p->n_inputs);
    uint64_t *da = calloc(wa ? wa : 1, 8), *db = calloc(wa ? wa : 1, 8), *dbi = calloc(wi ? wi : 1, 8);
    if (!da || !db || !dbi) {
        free(da);
        free(db);
        free(dbi);
        return CZ_ERR_NOMEM;
    }
    for (uint64_t k = 0; k < p->a.nnz; k++) {
        uint32_t c = p->a.col[k];
        if (cz_var_is_aux(c))
            da[cz_var_index(c) / 64] |= 1ull << (cz_var_index(c) % 64);
    }
    for (uint64_t k = 0; k < p->b.nnz; k++) {
        uint32_t c = p->b.col[k], i = cz_var_index(c);
        if (cz_var_is_aux(c))
            db[i / 64] |= 1ull << (i % 64);
        else
            dbi[i / 64] |= 1ull << (i % 64);
    }
    free(p->dens_a_aux);
    free(p->dens_b_aux);
    free(p->dens_b_input);
    p->dens_a_aux = da;
    p->dens_b_aux = db;
    p->dens_b_input = dbi;
    p->dens_a_aux_count = popcount_words(da, wa);
    p->dens_b_aux_count = popcount_words(db, wa);
    p->dens_b_input_count = popcount_words(dbi, wi);
    return CZ_OK;
}

/* ---- repeated rows ------------------------------------------------------- *
 * Poseidon's S-box x^5 is three constraints, lc·lc = x2, x2·x2 = x4 and
 * x4·lc = x5: one linear combination of the state (a row of the MDS
 * matrix folded in, a dozen terms with general coefficients) sits in A and
 * B of one row and again in B two rows later. In shaped-16, 108k of the
 * 196k rows repeat an earlier one, with 1.10M of the 1.59M terms whose
 * SpMV takes a Montgomery product. Each row is looked up by a hash of its
 * terms in a small direct-mapped table per matrix holding the latest row
 * seen in each slot, then compared term by term. The table forgets rows
 * far back, and so may miss some repeats; in shaped-16 the repeats within
 * 16 rows hold all but 0.02 % of the repeated rows' products, far inside
 * what 4,096 slots remember. */
enum { REP_SLOTS = 4096 };

typedef struct {
    uint64_t h;
    uint32_t row;
    uint32_t used;
} rep_slot;

/* Worth a copy instead of its terms: a product, or three additions. */
static bool row_worth(const cz_csr *m, uint64_t j)
{
    uint64_t lo = m->row_ptr[j], hi = m->row_ptr[j + 1];
    if (hi - lo >= 3) return true;
    for (uint64_t t = lo; t < hi; t++)
        if (m->coef[t] != CZ_PCE_COEF_ONE && m->coef[t] != CZ_PCE_COEF_MINUS_ONE) return true;
    return false;
}

static uint64_t row_hash(const cz_csr *m, uint64_t j)
{
    uint64_t lo = m->row_ptr[j], hi = m->row_ptr[j + 1], h = (hi - lo) * 0x9e3779b97f4a7c15ull;
    for (uint64_t t = lo; t < hi; t++) {
        h = (h ^ m->col[t]) * 0xff51afd7ed558ccdull;
        h = (h ^ m->coef[t]) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 29;
    }
    return h;
}

static bool rows_equal(const cz_csr *x, uint64_t i, const cz_csr *y, uint64_t j)
{
    uint64_t xl = x->row_ptr[i], n = x->row_ptr[i + 1] - xl, yl = y->row_ptr[j];
    if (y->row_ptr[j + 1] - yl != n) return false;
    return memcmp(x->col + xl, y->col + yl, n * sizeof(uint32_t)) == 0 &&
           memcmp(x->coef + xl, y->coef + yl, n * sizeof(uint32_t)) == 0;
}

cz_status cz_pce_compute_repeats(cz_pce *p)
{
    repeats_clear(p);
    uint64_t n = p->n_constraints;
    /* rows are u32 in the list; a larger circuit just keeps every row */
    if (n == 0 || n > UINT32_MAX) return CZ_OK;
    const cz_csr *m[3] = {&p->a, &p->b, &p->c};
    rep_slot *tab = calloc(3 * (size_t)REP_SLOTS, sizeof *tab);
    size_t cap[3] = {0, 0, 0};
    if (!tab) return CZ_ERR_NOMEM;
    /* row-major, A then B then C in a row: the order cz_pce_eval gives
     * every row range, so a match in an earlier matrix may be the same row */
    for (uint64_t j = 0; j < n; j++) {
        for (int k = 0; k < 3; k++) {
            if (!row_worth(m[k], j)) continue;
            uint64_t h = row_hash(m[k], j);
            size_t s = (size_t)(h & (REP_SLOTS - 1));
            for (int f = 0; f <= k; f++) {
                const rep_slot *e = &tab[(size_t)f * REP_SLOTS + s];
                if (!e->used || e->h != h || j - e->row > UINT16_MAX || !rows_equal(m[f], e->row, m[k], j))
                    continue;
                if (p->n_rep[k] == cap[k]) {
                    size_t nc = cap[k] ? 2 * cap[k] : 1024;
                    cz_pce_repeat *q = realloc(p->rep[k], nc * sizeof *q);
                    if (!q) {
                        free(tab);
                        repeats_clear(p);
                        return CZ_ERR_NOMEM;
                    }
                    p->rep[k] = q;
                    cap[k] = nc;
                }
                p->rep[k][p->n_rep[k]++] = (cz_pce_repeat){(uint32_t)j, (uint16_t)f, (uint16_t)(j - e->row)};
                break;
            }
            tab[(size_t)k * REP_SLOTS + s] = (rep_slot){h, (uint32_t)j, 1};
        }
    }
    free(tab);
    for (int k = 0; k < 3; k++)
        if (p->rep[k]) p->rep[k] = shrink(p->rep[k], p->n_rep[k] * sizeof(cz_pce_repeat));
    return CZ_OK;
}

/* ---- serialization ------------------------------------------------------- */
static const uint8_t PCE_MAGIC[8] = {'C', 'U', 'Z', 'K', 'P', 'C', 'E', 0};
#define PCE_HEADER_BYTES (8 + 4 + 4 + 8 * 8 + 32)

/* Byte sink: hashes everything and optionally writes it to a file. */
typedef struct {
    EVP_MD_CTX *md;
    FILE *f;
    bool ok;
} sink;

static void sink_put(sink *s, const void *data, size_t n)
{
    if (!s->ok || n == 0)
        return;
    if (EVP_DigestUpdate(s->md, data, n) != 1)
        s->ok = false;
    if (s->f && fwrite(data, 1, n, s->f) != n)
        s->ok = false;
}

static void put_u64(sink *s, uint64_t v) { sink_put(s, &v, 8); }

static void emit_counts(sink *s, const cz_pce *p)
{
    uint64_t c[8] = {p->n_constraints, p->n_circuit_constraints, p->n_inputs, p->n_aux,
                     p->n_coeffs, p->a.nnz, p->b.nnz, p->c.nnz};
    for (int i = 0; i < 8; i++)
        put_u64(s, c[i]);
}

/* coefficients + matrices: the part the circuit hash covers (after counts) */
static void emit_matrices(sink *s, const cz_pce *p)
{
    uint8_t buf[32 * 64];
    for (uint32_t i = 0; i < p->n_coeffs;) {
        uint32_t k = 0;
        for (; k < 64 && i < p->n_coeffs; k++, i++)
            cz_fr_to_bytes_le(buf + 32 * k, &p->coeffs[i]);
        sink_put(s, buf, 32 * (size_t)k);
    }
    const cz_csr *m[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++) {
        sink_put(s, m[k]->row_ptr, (size_t)(p->n_constraints + 1) * 8);
        sink_put(s, m[k]->col, (size_t)m[k]->nnz * 4);
        sink_put(s, m[k]->coef, (size_t)m[k]->nnz * 4);
    }
}

void cz_pce_compute_hash(const cz_pce *p, uint8_t out[32])
{
    sink s = {EVP_MD_CTX_new(), NULL, true};
    static const char domain[] = "cuzk-pce-circuit-v1";
    if (s.md && EVP_DigestInit_ex(s.md, EVP_sha256(), NULL) == 1) {
        sink_put(&s, domain, sizeof domain);
        emit_counts(&s, p);
        emit_matrices(&s, p);
        unsigned len = 32;
        if (s.ok && EVP_DigestFinal_ex(s.md, out, &len) == 1) {
            EVP_MD_CTX_free(s.md);
            return;
        }
    }
    /* OpenSSL failure: never leave a plausible-looking hash */
    memset(out, 0, 32);
    EVP_MD_CTX_free(s.md);
}

uint64_t cz_pce_file_size(const cz_pce *p)
{
    uint64_t n = PCE_HEADER_BYTES + (uint64_t)p->n_coeffs * 32;
    n += 3 * (p->n_constraints + 1) * 8 + (p->a.nnz + p->b.nnz + p->c.nnz) * 8;
    n += (2 * (uint64_t)words(p->n_aux) + words(p->n_inputs)) * 8;
    return n + 32;
}

static cz_status set_err(char *err, size_t errlen, cz_status st, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

cz_status cz_pce_save(const cz_pce *p, const char *path, char *err, size_t errlen)
{
    if (!p || !path)
        return set_err(err, errlen, CZ_ERR_INVALID_ARG, "cz_pce_save: NULL argument");
    FILE *f = fopen(path, "wb");
    if (!f)
        return set_err(err, errlen, CZ_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    sink s = {EVP_MD_CTX_new(), f, true};
    if (!s.md || EVP_DigestInit_ex(s.md, EVP_sha256(), NULL) != 1)
        s.ok = false;
    sink_put(&s, PCE_MAGIC, 8);
    uint32_t vf[2] = {CZ_PCE_VERSION, 0};
    sink_put(&s, vf, 8);
    emit_counts(&s, p);
    sink_put(&s, p->circuit_hash, 32);
    emit_matrices(&s, p);
    sink_put(&s, p->dens_a_aux, words(p->n_aux) * 8);
    sink_put(&s, p->dens_b_aux, words(p->n_aux) * 8);
    sink_put(&s, p->dens_b_input, words(p->n_inputs) * 8);
    uint8_t sum[32];
    unsigned len = 32;
    if (s.ok && EVP_DigestFinal_ex(s.md, sum, &len) != 1)
        s.ok = false;
    EVP_MD_CTX_free(s.md);
    if (s.ok && fwrite(sum, 1, 32, f) != 32)
        s.ok = false;
    int saved = errno;
    if (fclose(f) != 0)
        s.ok = false;
    if (!s.ok) {
        remove(path);
        return set_err(err, errlen, CZ_ERR_IO, "writing %s failed: %s", path, strerror(saved ? saved : errno));
    }
    return CZ_OK;
}

/* ---- parsing -------------------------------------------------------------
 * One parser for files and memory buffers. A file is streamed straight into
 * the final arrays (no second copy of a multi-GB PCE), hashing as it goes;
 * allocation happens only after the sizes the header implies have been
 * checked against the real length, so a corrupt count cannot trigger a huge
 * allocation. The checksum is compared before the structure is trusted. */
typedef struct {
    const uint8_t *mem; /* memory source, or NULL */
    FILE *f;            /* file source */
    EVP_MD_CTX *md;
    bool io_error;
} src;

static bool src_read(src *s, void *dst, size_t n)
{
    if (n == 0)
        return true;
    if (s->mem) {
        memcpy(dst, s->mem, n);
        s->mem += n;
    } else if (fread(dst, 1, n, s->f) != n) {
        s->io_error = true;
        return false;
    }
    if (s->md && EVP_DigestUpdate(s->md, dst, n) != 1)
        return false;
    return true;
}

/* a += count·size with overflow check; false on overflow */
static bool acc_add(uint64_t *acc, uint64_t count, uint64_t size)
{
    if (size && count > UINT64_MAX / size)
        return false;
    uint64_t v = count * size;
    if (*acc > UINT64_MAX - v)
        return false;
    *acc += v;
    return true;
}

static cz_status check_matrix(const cz_pce *p, const cz_csr *m, char name, char *err, size_t errlen)
{
    if (m->row_ptr[0] != 0)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE matrix %c: row_ptr[0] is not 0", name);
    for (uint64_t j = 0; j < p->n_constraints; j++) {
        uint64_t lo = m->row_ptr[j], hi = m->row_ptr[j + 1];
        if (hi < lo || hi > m->nnz)
            return set_err(err, errlen, CZ_ERR_FORMAT, "PCE matrix %c: row_ptr[%llu] out of order or range",
                           name, (unsigned long long)(j + 1));
        for (uint64_t k = lo; k < hi; k++) {
            uint32_t c = m->col[k];
            uint64_t lim = cz_var_is_aux(c) ? p->n_aux : p->n_inputs;
            if (cz_var_index(c) >= lim)
                return set_err(err, errlen, CZ_ERR_FORMAT, "PCE matrix %c: col[%llu] = 0x%08x out of range",
                               name, (unsigned long long)k, c);
            if (k > lo && m->col[k - 1] >= c)
                return set_err(err, errlen, CZ_ERR_FORMAT,
                               "PCE matrix %c: row %llu columns not strictly increasing", name,
                               (unsigned long long)j);
            if (m->coef[k] >= p->n_coeffs)
                return set_err(err, errlen, CZ_ERR_FORMAT, "PCE matrix %c: coef[%llu] = %u out of range",
                               name, (unsigned long long)k, m->coef[k]);
        }
    }
    if (m->row_ptr[p->n_constraints] != m->nnz)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE matrix %c: last row_ptr != nnz", name);
    return CZ_OK;
}

#define READ_OR_FAIL(dst, n)                                                                                  \
    do {                                                                                                      \
        if (!src_read(s, (dst), (n))) {                                                                       \
            st = s->io_error ? set_err(err, errlen, CZ_ERR_IO, "PCE read failed")                            \
                             : set_err(err, errlen, CZ_ERR_INTERNAL, "PCE checksum: OpenSSL SHA-256 failed"); \
            goto fail;                                                                                        \
        }                                                                                                     \
    } while (0)

static cz_status parse_impl(cz_pce **out, src *s, uint64_t len, char *err, size_t errlen)
{
    *out = NULL;
    if (len < PCE_HEADER_BYTES + 32)
        return set_err(err, errlen, CZ_ERR_TRUNCATED, "PCE header truncated: %llu bytes, need at least %d",
                       (unsigned long long)len, PCE_HEADER_BYTES + 32);
    cz_status st = CZ_OK;
    cz_pce *p = NULL;
    uint8_t hdr[PCE_HEADER_BYTES];
    READ_OR_FAIL(hdr, sizeof hdr);
    if (memcmp(hdr, PCE_MAGIC, 8) != 0)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE magic: not a cuzk PCE file");
    uint32_t version, flags;
    memcpy(&version, hdr + 8, 4);
    memcpy(&flags, hdr + 12, 4);
    if (version != CZ_PCE_VERSION)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE version: file has %u, this build reads %u", version,
                       CZ_PCE_VERSION);
    if (flags != 0)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE flags: unknown flags 0x%x", flags);
    uint64_t c[8];
    memcpy(c, hdr + 16, 64);
    uint64_t n_cons = c[0], n_circ = c[1], n_inp = c[2], n_aux = c[3], n_coef = c[4];
    if (n_inp < 1 || n_inp > CZ_VAR_MAX_COUNT)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE n_inputs = %llu out of range", (unsigned long long)n_inp);
    if (n_aux > CZ_VAR_MAX_COUNT)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE n_aux = %llu out of range", (unsigned long long)n_aux);
    if (n_coef < 2 || n_coef > (1u << 30))
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE n_coeffs = %llu out of range", (unsigned long long)n_coef);
    if (n_circ > n_cons || n_cons - n_circ != n_inp)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE n_constraints: %llu != %llu circuit rows + %llu inputs",
                       (unsigned long long)n_cons, (unsigned long long)n_circ, (unsigned long long)n_inp);
    /* sizes implied by the header, overflow-checked, before any allocation */
    uint64_t need = PCE_HEADER_BYTES;
    bool ok = acc_add(&need, n_coef, 32) && n_cons < UINT64_MAX;
    for (int k = 0; k < 3 && ok; k++)
        ok = acc_add(&need, n_cons + 1, 8) && acc_add(&need, c[5 + k], 8);
    ok = ok && acc_add(&need, 2 * (uint64_t)words(n_aux) + words(n_inp), 8) && acc_add(&need, 1, 32);
    if (!ok)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE counts (nnz, n_constraints) overflow the file size");
    if (need > len)
        return set_err(err, errlen, CZ_ERR_TRUNCATED,
                       "PCE body truncated: header implies %llu bytes, file has %llu", (unsigned long long)need,
                       (unsigned long long)len);
    if (need < len)
        return set_err(err, errlen, CZ_ERR_FORMAT, "PCE trailing data: header implies %llu bytes, file has %llu",
                       (unsigned long long)need, (unsigned long long)len);
    if (need > SIZE_MAX / 2)
        return set_err(err, errlen, CZ_ERR_NOMEM, "PCE too large for this address space");

    p = calloc(1, sizeof *p);
    if (!p)
        return set_err(err, errlen, CZ_ERR_NOMEM, "out of memory loading the PCE");
    p->n_constraints = n_cons;
    p->n_circuit_constraints = n_circ;
    p->n_inputs = n_inp;
    p->n_aux = n_aux;
    p->n_coeffs = (uint32_t)n_coef;
    memcpy(p->circuit_hash, hdr + 80, 32);
    uint8_t *cbytes = malloc((size_t)n_coef * 32);
    p->coeffs = malloc((size_t)n_coef * sizeof(cz_fr));
    cz_csr *m[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++) {
        m[k]->nnz = c[5 + k];
        m[k]->row_ptr = malloc((size_t)(n_cons + 1) * 8);
        m[k]->col = malloc(m[k]->nnz ? (size_t)m[k]->nnz * 4 : 1);
        m[k]->coef = malloc(m[k]->nnz ? (size_t)m[k]->nnz * 4 : 1);
    }
    size_t dw[3] = {words(n_aux), words(n_aux), words(n_inp)};
    uint64_t *dens = malloc((dw[0] + dw[1] + dw[2] + 1) * 8);
    bool alloc_ok = cbytes && p->coeffs && dens;
    for (int k = 0; k < 3; k++)
        alloc_ok = alloc_ok && m[k]->row_ptr && m[k]->col && m[k]->coef;
    if (!alloc_ok) {
        free(cbytes);
        free(dens);
        cz_pce_free(p);
        return set_err(err, errlen, CZ_ERR_NOMEM, "out of memory loading the PCE (%llu bytes)",
                       (unsigned long long)need);
    }
    uint8_t stored[32], sum[32];
    unsigned slen = 32;
    if (!src_read(s, cbytes, (size_t)n_coef * 32))
        goto read_fail;
    for (int k = 0; k < 3; k++)
        if (!src_read(s, m[k]->row_ptr, (size_t)(n_cons + 1) * 8) || !src_read(s, m[k]->col, (size_t)m[k]->nnz * 4) ||
            !src_read(s, m[k]->coef, (size_t)m[k]->nnz * 4))
            goto read_fail;
    if (!src_read(s, dens, (dw[0] + dw[1] + dw[2]) * 8))
        goto read_fail;
    EVP_MD_CTX *md = s->md;
    s->md = NULL; /* the checksum itself is not hashed */
    if (!src_read(s, stored, 32))
        goto read_fail;
    if (EVP_DigestFinal_ex(md, sum, &slen) != 1) {
        st = set_err(err, errlen, CZ_ERR_INTERNAL, "PCE checksum: OpenSSL SHA-256 failed");
        goto fail_bufs;
    }
    if (memcmp(sum, stored, 32) != 0) {
        st = set_err(err, errlen, CZ_ERR_FORMAT, "PCE checksum mismatch: file is corrupt");
        goto fail_bufs;
    }
    /* structure: coefficients canonical, nonzero, ids 0/1 = 1/-1 */
    for (uint64_t i = 0; i < n_coef; i++) {
        if (cz_fr_from_bytes_le(&p->coeffs[i], cbytes + 32 * i) != CZ_OK) {
            st = set_err(err, errlen, CZ_ERR_NOT_CANONICAL, "PCE coeffs[%llu] is not < r", (unsigned long long)i);
            goto fail_bufs;
        }
        if (cz_fr_is_zero(&p->coeffs[i])) {
            st = set_err(err, errlen, CZ_ERR_FORMAT, "PCE coeffs[%llu] is zero", (unsigned long long)i);
            goto fail_bufs;
        }
    }
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    if (!cz_fr_eq(&p->coeffs[0], &CZ_FR_ONE) || !cz_fr_eq(&p->coeffs[1], &m1)) {
        st = set_err(err, errlen, CZ_ERR_FORMAT, "PCE coeffs[0..1] must be 1 and -1");
        goto fail_bufs;
    }
    for (int k = 0; k < 3; k++) {
        st = check_matrix(p, m[k], "ABC"[k], err, errlen);
        if (st != CZ_OK)
            goto fail_bufs;
    }
    /* the appended input rows must be exactly x_i in A, empty in B and C */
    for (uint64_t i = 0; i < n_inp; i++) {
        uint64_t j = n_circ + i, lo = p->a.row_ptr[j];
        if (p->a.row_ptr[j + 1] != lo + 1 || p->a.col[lo] != (uint32_t)i || p->a.coef[lo] != CZ_PCE_COEF_ONE ||
            p->b.row_ptr[j + 1] != p->b.row_ptr[j] || p->c.row_ptr[j + 1] != p->c.row_ptr[j]) {
            st = set_err(err, errlen, CZ_ERR_FORMAT, "PCE appended input row %llu is not x_i * 0 = 0",
                         (unsigned long long)i);
            goto fail_bufs;
        }
    }
    st = cz_pce_compute_density(p);
    if (st == CZ_OK) st = cz_pce_compute_repeats(p);
    if (st != CZ_OK) {
        set_err(err, errlen, st, "out of memory computing the PCE density and repeated rows");
        goto fail_bufs;
    }
    const uint64_t *want[3] = {p->dens_a_aux, p->dens_b_aux, p->dens_b_input};
    static const char *const dname[3] = {"dens_a_aux", "dens_b_aux", "dens_b_input"};
    for (int k = 0, off = 0; k < 3; off += (int)dw[k], k++) {
        if (memcmp(dens + off, want[k], dw[k] * 8) != 0) {
            st = set_err(err, errlen, CZ_ERR_FORMAT, "PCE %s does not match the matrices", dname[k]);
            goto fail_bufs;
        }
    }
    uint8_t h[32];
    cz_pce_compute_hash(p, h);
    if (memcmp(h, p->circuit_hash, 32) != 0) {
        st = set_err(err, errlen, CZ_ERR_FORMAT, "PCE circuit_hash does not match the matrices");
        goto fail_bufs;
    }
    free(cbytes);
    free(dens);
    *out = p;
    return CZ_OK;
read_fail:
    st = s->io_error ? set_err(err, errlen, CZ_ERR_IO, "PCE read failed (file changed while loading?)")
                     : set_err(err, errlen, CZ_ERR_INTERNAL, "PCE checksum: OpenSSL SHA-256 failed");
fail_bufs:
    free(cbytes);
    free(dens);
fail:
    cz_pce_free(p);
    return st;
}

static cz_status parse_with_md(cz_pce **out, src *s, uint64_t len, char *err, size_t errlen)
{
    s->md = EVP_MD_CTX_new();
    if (!s->md || EVP_DigestInit_ex(s->md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(s->md);
        return set_err(err, errlen, CZ_ERR_INTERNAL, "PCE checksum: OpenSSL SHA-256 unavailable");
    }
    EVP_MD_CTX *md = s->md; /* parse_impl detaches it before reading the checksum */
    cz_status st = parse_impl(out, s, len, err, errlen);
    EVP_MD_CTX_free(md);
    return st;
}

cz_status cz_pce_parse(cz_pce **out, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    if (!out || (!buf && len))
        return set_err(err, errlen, CZ_ERR_INVALID_ARG, "cz_pce_parse: NULL argument");
    *out = NULL;
    src s = {buf ? buf : (const uint8_t *)"", NULL, NULL, false};
    return parse_with_md(out, &s, len, err, errlen);
}

cz_status cz_pce_load(cz_pce **out, const char *path, char *err, size_t errlen)
{
    if (!out || !path)
        return set_err(err, errlen, CZ_ERR_INVALID_ARG, "cz_pce_load: NULL argument");
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return set_err(err, errlen, CZ_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    cz_status st;
    if (fseeko(f, 0, SEEK_END) != 0) {
        st = set_err(err, errlen, CZ_ERR_IO, "cannot seek %s: %s", path, strerror(errno));
    } else {
        off_t sz = ftello(f);
        if (sz < 0 || fseeko(f, 0, SEEK_SET) != 0) {
            st = set_err(err, errlen, CZ_ERR_IO, "cannot size %s: %s", path, strerror(errno));
        } else {
            src s = {NULL, f, NULL, false};
            st = parse_with_md(out, &s, (uint64_t)sz, err, errlen);
        }
    }
    fclose(f);
    return st;
}
