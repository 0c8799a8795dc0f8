/* snarkjs Groth16 .zkey reader/writer (version 1, protocol 1 = Groth16). */
#include "common/big_alloc.h"
#include "binfile.h"
#include "cuzk/snarkjs.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void cz_snarkjs_zkey_free(cz_snarkjs_zkey *z)
{
    if (!z) return;
    free(z->ic);
    free(z->coefs);
    free(z->a);
    free(z->b1);
    free(z->b2);
    free(z->c);
    free(z->h);
    if (z->map_) cz_unmap_file(z->map_, z->map_len_);
    free(z);
}

/* Parallel check of the point arrays of a key (on the curve, then in the
 * prime-order subgroup): IC first, then the five queries, as one index
 * space so the first failing point can be named whatever the thread
 * count. */
typedef struct {
    const cz_snarkjs_zkey *z;
    size_t n_ic, n_a, n_b1, n_b2, n_c, n_h;
} sub_ctx;

/* CZ_OK, CZ_ERR_NOT_ON_CURVE or CZ_ERR_NOT_IN_SUBGROUP for point i. */
static cz_status point_status(const sub_ctx *s, size_t i)
{
    const cz_snarkjs_zkey *z = s->z;
    const cz_g1_affine *p1 = NULL;
    const cz_g2_affine *p2 = NULL;
    if (i < s->n_ic) p1 = &z->ic[i];
    else if ((i -= s->n_ic) < s->n_a) p1 = &z->a[i];
    else if ((i -= s->n_a) < s->n_b1) p1 = &z->b1[i];
    else if ((i -= s->n_b1) < s->n_b2) p2 = &z->b2[i];
    else if ((i -= s->n_b2) < s->n_c) p1 = &z->c[i];
    else p1 = &z->h[i - s->n_c];
    if (p1) {
        if (!cz_g1_affine_is_on_curve(p1)) return CZ_ERR_NOT_ON_CURVE;
        return cz_g1_affine_in_subgroup(p1) ? CZ_OK : CZ_ERR_NOT_IN_SUBGROUP;
    }
    if (!cz_g2_affine_is_on_curve(p2)) return CZ_ERR_NOT_ON_CURVE;
    return cz_g2_affine_in_subgroup(p2) ? CZ_OK : CZ_ERR_NOT_IN_SUBGROUP;
}

static bool check_one(void *arg, size_t i) { return point_status(arg, i) == CZ_OK; }

static const char *point_name(const sub_ctx *s, size_t i, size_t *idx)
{
    const size_t n[6] = {s->n_ic, s->n_a, s->n_b1, s->n_b2, s->n_c, s->n_h};
    static const char *const names[6] = {"IC (section 3)", "A (section 5)", "B1 (section 6)",
                                         "B2 (section 7)", "C (section 8)", "H (section 9)"};
    for (int k = 0; k < 6; k++) {
        if (i < n[k]) {
            *idx = i;
            return names[k];
        }
        i -= n[k];
    }
    *idx = 0;
    return "?";
}

/* The check of IC alone (queries = false) or of IC and the queries. */
static cz_status check_points(const cz_snarkjs_zkey *z, bool queries, cz_pool *pool, cz_errbuf *err)
{
    size_t n_priv = (size_t)z->n_vars - z->n_public - 1;
    sub_ctx s = {z, (size_t)z->n_public + 1, 0, 0, 0, 0, 0};
    if (queries) {
        s.n_a = s.n_b1 = s.n_b2 = z->n_vars;
        s.n_c = n_priv;
        s.n_h = z->domain_size;
    }
    size_t total = s.n_ic + s.n_a + s.n_b1 + s.n_b2 + s.n_c + s.n_h;
    size_t bad = cz_bin_first_failing(pool, total, 256, check_one, &s);
    if (bad == SIZE_MAX) return CZ_OK;
    size_t idx;
    const char *name = point_name(&s, bad, &idx);
    cz_status st = point_status(&s, bad);
    return cz_err(err, st, "zkey: %s point %zu is %s", name, idx,
                  st == CZ_ERR_NOT_ON_CURVE ? "not on its curve" : "not in the prime-order subgroup");
}

cz_status cz_snarkjs_zkey_check_points(const cz_snarkjs_zkey *z, cz_pool *pool, cz_errbuf *err)
{
    return check_points(z, true, pool, err);
}

/* Decoding of one point array (canonical coordinates; on the curve unless
 * on_curve is false), in parallel: the arrays are most of a key's bytes (a 2^20 key has ~5 M
 * points). */
typedef struct {
    void *out;
    const uint8_t *in;
    bool g2, on_curve;
} dec_ctx;

static cz_status decode_one(const dec_ctx *d, size_t i)
{
    return d->g2 ? cz_zk_g2_decode(&((cz_g2_affine *)d->out)[i], d->in + 192 * i, d->on_curve)
                 : cz_zk_g1_decode(&((cz_g1_affine *)d->out)[i], d->in + 96 * i, d->on_curve);
}

static bool decode_ok(void *arg, size_t i) { return decode_one(arg, i) == CZ_OK; }

static cz_status read_array(void **out, const cz_binfile *f, uint32_t id, const char *name, uint64_t count,
                            bool g2, bool on_curve, cz_pool *pool, cz_errbuf *err)
{
    const size_t pb = g2 ? 192 : 96, esz = g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    const uint8_t *p;
    uint64_t len;
    cz_status st = cz_binfile_section(f, id, name, &p, &len, err);
    if (st != CZ_OK) return st;
    if (len != count * pb)
        return cz_err(err, CZ_ERR_FORMAT, "zkey: section %u (%s) has %llu bytes, expected %llu points x %zu = %llu",
                      id, name, (unsigned long long)len, (unsigned long long)count, pb,
                      (unsigned long long)(count * pb));
    *out = cz_big_alloc_array(count ? count : 1, esz);
    if (!*out) return cz_err(err, CZ_ERR_NOMEM, "zkey: out of memory for section %u", id);
    dec_ctx d = {*out, p, g2, on_curve};
    size_t bad = cz_bin_first_failing(pool, (size_t)count, 1024, decode_ok, &d);
    if (bad == SIZE_MAX) return CZ_OK;
    /* the first failing point again, alone, for its status */
    st = decode_one(&d, bad);
    return cz_err(err, st, "zkey: section %u (%s) point %zu: %s", id, name, bad, cz_status_str(st));
}

static cz_status read_g1_array(cz_g1_affine **out, const cz_binfile *f, uint32_t id, const char *name,
                               uint64_t count, bool on_curve, cz_pool *pool, cz_errbuf *err)
{
    void *v = NULL;
    cz_status st = read_array(&v, f, id, name, count, false, on_curve, pool, err);
    *out = v;
    return st;
}

static cz_status read_g2_array(cz_g2_affine **out, const cz_binfile *f, uint32_t id, const char *name,
                               uint64_t count, bool on_curve, cz_pool *pool, cz_errbuf *err)
{
    void *v = NULL;
    cz_status st = read_array(&v, f, id, name, count, true, on_curve, pool, err);
    *out = v;
    return st;
}

/* §4 entries, 44 bytes each (u32 matrix, constraint, signal; 32-byte
 * value), checked in parallel (a 2^20 key has millions). The fields of
 * one record, checked; c->value receives the stored value (c·R^2 mod r,
 * which must be < r) unless decode, then its Montgomery reduction c·R,
 * exactly cuzk's Montgomery form of c. */
static cz_status coef_read(cz_zkey_coef *c, const uint8_t *rec, const cz_snarkjs_zkey *z, bool decode)
{
    c->matrix = cz_le32(rec);
    c->constraint = cz_le32(rec + 4);
    c->signal = cz_le32(rec + 8);
    if (c->matrix > 1 || c->constraint >= z->domain_size || c->signal >= z->n_vars) return CZ_ERR_FORMAT;
    cz_fr s;
    for (int k = 0; k < 4; k++) s.l[k] = cz_le64(rec + 12 + 8 * k);
    int k = 3;
    while (k > 0 && s.l[k] == CZ_FR_MODULUS[k]) k--;
    if (s.l[k] >= CZ_FR_MODULUS[k]) return CZ_ERR_NOT_CANONICAL;
    if (decode) cz_fr_to_raw(c->value.l, &s);
    else c->value = s;
    return CZ_OK;
}

typedef struct {
    cz_snarkjs_zkey *z;
    const uint8_t *in;
    _Atomic uint64_t *runs; /* a bit per (matrix, constraint): a run of its terms began */
    atomic_bool scattered;  /* some (matrix, constraint) has terms in two runs */
} coef_ctx;

static bool coef_ok(void *arg, size_t i)
{
    coef_ctx *x = arg;
    cz_zkey_coef scratch, *c = x->z->coefs ? &x->z->coefs[i] : &scratch; /* records: checked only */
    const uint8_t *rec = x->in + 44 * i;
    if (coef_read(c, rec, x->z, x->z->coefs != NULL) != CZ_OK) return false;
    /* A run of one (matrix, constraint)'s terms starts here: record its
     * key once; a key seen starting twice has its terms apart. The
     * previous record is read from the file's bytes (another thread may
     * be decoding it). */
    if (x->runs && (i == 0 || memcmp(rec - 44, rec, 8) != 0)) {
        const uint64_t bit = (uint64_t)c->matrix * x->z->domain_size + c->constraint;
        const uint64_t m = (uint64_t)1 << (bit % 64);
        if (atomic_fetch_or_explicit(&x->runs[bit / 64], m, memory_order_relaxed) & m)
            atomic_store_explicit(&x->scattered, true, memory_order_relaxed);
    }
    return true;
}

static cz_status header_point_g1(cz_g1_affine *p, cz_rd *rd, const char *name, cz_errbuf *err)
{
    const uint8_t *b;
    if (!cz_rd_bytes(rd, &b, 96)) return cz_err(err, CZ_ERR_TRUNCATED, "zkey: header truncated at %s", name);
    cz_status st = cz_zk_g1_parse(p, b);
    if (st == CZ_OK && !cz_g1_affine_in_subgroup(p)) st = CZ_ERR_NOT_IN_SUBGROUP;
    if (st == CZ_OK && cz_g1_affine_is_infinity(p)) st = CZ_ERR_IDENTITY;
    if (st != CZ_OK) return cz_err(err, st, "zkey: header %s: %s", name, cz_status_str(st));
    return CZ_OK;
}

static cz_status header_point_g2(cz_g2_affine *p, cz_rd *rd, const char *name, cz_errbuf *err)
{
    const uint8_t *b;
    if (!cz_rd_bytes(rd, &b, 192)) return cz_err(err, CZ_ERR_TRUNCATED, "zkey: header truncated at %s", name);
    cz_status st = cz_zk_g2_parse(p, b);
    if (st == CZ_OK && !cz_g2_affine_in_subgroup(p)) st = CZ_ERR_NOT_IN_SUBGROUP;
    if (st == CZ_OK && cz_g2_affine_is_infinity(p)) st = CZ_ERR_IDENTITY;
    if (st != CZ_OK) return cz_err(err, st, "zkey: header %s: %s", name, cz_status_str(st));
    return CZ_OK;
}

cz_status cz_snarkjs_zkey_parse(cz_snarkjs_zkey **out, const uint8_t *buf, size_t len, unsigned flags,
                                cz_pool *pool, cz_errbuf *err)
{
    *out = NULL;
    cz_binfile f;
    cz_status st = cz_binfile_open(&f, buf, len, "zkey", 1, 1, err);
    if (st != CZ_OK) return st;
    cz_snarkjs_zkey *z = calloc(1, sizeof *z);
    if (!z) {
        cz_binfile_close(&f);
        return cz_err(err, CZ_ERR_NOMEM, "zkey: out of memory");
    }
    const uint8_t *p;
    uint64_t plen;
    cz_rd rd;
    uint32_t proto, n8q, n8r;
    const uint8_t *q, *r;

    if ((st = cz_binfile_section(&f, 1, "protocol", &p, &plen, err)) != CZ_OK) goto fail;
    rd = (cz_rd){p, plen};
    if (!cz_rd_u32(&rd, &proto) || proto != 1) {
        st = cz_err(err, CZ_ERR_UNSUPPORTED, "zkey: protocol is not Groth16 (section 1)");
        goto fail;
    }
    if ((st = cz_binfile_section(&f, 2, "header", &p, &plen, err)) != CZ_OK) goto fail;
    rd = (cz_rd){p, plen};
    if (!cz_rd_u32(&rd, &n8q) || n8q != 48 || !cz_rd_bytes(&rd, &q, 48) ||
        !cz_prime_equals(q, 48, CZ_FP_MODULUS, 6)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "zkey: header: base field is not BLS12-381's (n8q must be 48, q = p)");
        goto fail;
    }
    if (!cz_rd_u32(&rd, &n8r) || n8r != 32 || !cz_rd_bytes(&rd, &r, 32) ||
        !cz_prime_equals(r, 32, CZ_FR_MODULUS, 4)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "zkey: header: scalar field is not BLS12-381's (n8r must be 32, r)");
        goto fail;
    }
    if (!cz_rd_u32(&rd, &z->n_vars) || !cz_rd_u32(&rd, &z->n_public) || !cz_rd_u32(&rd, &z->domain_size)) {
        st = cz_err(err, CZ_ERR_TRUNCATED, "zkey: header truncated");
        goto fail;
    }
    if (z->domain_size == 0 || (z->domain_size & (z->domain_size - 1)) || z->domain_size > (1u << 31)) {
        st = cz_err(err, CZ_ERR_FORMAT, "zkey: header: domainSize %u is not a power of two <= 2^31", z->domain_size);
        goto fail;
    }
    if ((uint64_t)z->n_public + 1 > z->n_vars) {
        st = cz_err(err, CZ_ERR_FORMAT, "zkey: header: nPublic %u + 1 exceeds nVars %u", z->n_public, z->n_vars);
        goto fail;
    }
    if ((st = header_point_g1(&z->alpha1, &rd, "alpha_1", err)) != CZ_OK) goto fail;
    if ((st = header_point_g1(&z->beta1, &rd, "beta_1", err)) != CZ_OK) goto fail;
    if ((st = header_point_g2(&z->beta2, &rd, "beta_2", err)) != CZ_OK) goto fail;
    if ((st = header_point_g2(&z->gamma2, &rd, "gamma_2", err)) != CZ_OK) goto fail;
    if ((st = header_point_g1(&z->delta1, &rd, "delta_1", err)) != CZ_OK) goto fail;
    if ((st = header_point_g2(&z->delta2, &rd, "delta_2", err)) != CZ_OK) goto fail;

    /* §4 coefficients */
    if ((st = cz_binfile_section(&f, 4, "coefficients", &p, &plen, err)) != CZ_OK) goto fail;
    rd = (cz_rd){p, plen};
    uint32_t ncoef;
    if (!cz_rd_u32(&rd, &ncoef) || (uint64_t)ncoef * 44 != rd.left) {
        st = cz_err(err, CZ_ERR_FORMAT, "zkey: section 4 (coefficients): count does not match its %llu bytes",
                    (unsigned long long)plen);
        goto fail;
    }
    z->n_coefs = ncoef;
    if (flags & CZ_SNARKJS_COEF_RECORDS) {
        z->coef_rec = rd.p; /* checked below, not decoded (see snarkjs.h) */
    } else if (!(z->coefs = malloc((ncoef ? ncoef : 1) * sizeof *z->coefs))) {
        st = cz_err(err, CZ_ERR_NOMEM, "zkey: out of memory for %u coefficients", ncoef);
        goto fail;
    }
    /* whether each (matrix, constraint)'s terms lie together
     * (z->coef_grouped); without the memory for the bits, taken as not */
    coef_ctx cc = {z, rd.p, calloc(((uint64_t)2 * z->domain_size + 63) / 64, sizeof(uint64_t)), false};
    size_t bad = cz_bin_first_failing(pool, ncoef, 4096, coef_ok, &cc);
    z->coef_grouped = cc.runs && !atomic_load(&cc.scattered);
    free(cc.runs);
    if (bad != SIZE_MAX) {
        cz_zkey_coef one, *c = &one;
        if (coef_read(c, cc.in + 44 * bad, z, false) == CZ_ERR_NOT_CANONICAL)
            st = cz_err(err, CZ_ERR_NOT_CANONICAL, "zkey: section 4 entry %zu: value >= r", bad);
        else
            st = cz_err(err, CZ_ERR_FORMAT,
                        "zkey: section 4 entry %zu: matrix %u / constraint %u / signal %u out of range", bad,
                        c->matrix, c->constraint, c->signal);
        goto fail;
    }

    uint64_t n_priv = (uint64_t)z->n_vars - z->n_public - 1;
    /* IC is part of the verifying key: always on the curve (and, below, in
     * the subgroup); the queries unless CZ_SNARKJS_NO_QUERY_CHECK */
    const bool qc = !(flags & CZ_SNARKJS_NO_QUERY_CHECK);
    if ((st = read_g1_array(&z->ic, &f, 3, "IC", (uint64_t)z->n_public + 1, true, pool, err)) != CZ_OK) goto fail;
    if ((st = read_g1_array(&z->a, &f, 5, "A", z->n_vars, qc, pool, err)) != CZ_OK) goto fail;
    if ((st = read_g1_array(&z->b1, &f, 6, "B1", z->n_vars, qc, pool, err)) != CZ_OK) goto fail;
    if ((st = read_g2_array(&z->b2, &f, 7, "B2", z->n_vars, qc, pool, err)) != CZ_OK) goto fail;
    if ((st = read_g1_array(&z->c, &f, 8, "C", n_priv, qc, pool, err)) != CZ_OK) goto fail;
    if ((st = read_g1_array(&z->h, &f, 9, "H", z->domain_size, qc, pool, err)) != CZ_OK) goto fail;

    if ((st = check_points(z, !(flags & (CZ_SNARKJS_NO_SUBGROUP_CHECK | CZ_SNARKJS_NO_QUERY_CHECK)), pool, err)) !=
        CZ_OK)
        goto fail;
    cz_binfile_close(&f);
    *out = z;
    return CZ_OK;
fail:
    cz_binfile_close(&f);
    cz_snarkjs_zkey_free(z);
    return st;
}

cz_status cz_snarkjs_zkey_read(cz_snarkjs_zkey **out, const char *path, unsigned flags, cz_pool *pool,
                               cz_errbuf *err)
{
    const uint8_t *buf;
    size_t len;
    cz_status st = cz_map_file(path, &buf, &len, pool, err);
    if (st != CZ_OK) return st;
    st = cz_snarkjs_zkey_parse(out, buf, len, flags, pool, err);
    if (st == CZ_OK && (*out)->coef_rec) {
        (*out)->map_ = buf; /* the records point into it: the key keeps it */
        (*out)->map_len_ = len;
    } else {
        cz_unmap_file(buf, len);
    }
    return st;
}

static void w_g1s(cz_binwriter *w, const cz_g1_affine *p, size_t n)
{
    uint8_t b[96];
    for (size_t i = 0; i < n; i++) {
        cz_zk_g1_write(b, &p[i]);
        cz_binw_bytes(w, b, 96);
    }
}

static void w_g2s(cz_binwriter *w, const cz_g2_affine *p, size_t n)
{
    uint8_t b[192];
    for (size_t i = 0; i < n; i++) {
        cz_zk_g2_write(b, &p[i]);
        cz_binw_bytes(w, b, 192);
    }
}

cz_status cz_snarkjs_zkey_write(const char *path, const cz_snarkjs_zkey *z, cz_errbuf *err)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    cz_binwriter w = {fp, 0, false};
    uint8_t b[48];
    cz_binw_header(&w, "zkey", 1, 10);
    cz_binw_begin(&w, 1);
    cz_binw_u32(&w, 1);
    cz_binw_end(&w);

    cz_binw_begin(&w, 2);
    cz_binw_u32(&w, 48);
    for (int i = 0; i < 48; i++) b[i] = (uint8_t)(CZ_FP_MODULUS[i / 8] >> (8 * (i % 8)));
    cz_binw_bytes(&w, b, 48);
    cz_binw_u32(&w, 32);
    for (int i = 0; i < 32; i++) b[i] = (uint8_t)(CZ_FR_MODULUS[i / 8] >> (8 * (i % 8)));
    cz_binw_bytes(&w, b, 32);
    cz_binw_u32(&w, z->n_vars);
    cz_binw_u32(&w, z->n_public);
    cz_binw_u32(&w, z->domain_size);
    w_g1s(&w, &z->alpha1, 1);
    w_g1s(&w, &z->beta1, 1);
    w_g2s(&w, &z->beta2, 1);
    w_g2s(&w, &z->gamma2, 1);
    w_g1s(&w, &z->delta1, 1);
    w_g2s(&w, &z->delta2, 1);
    cz_binw_end(&w);

    cz_binw_begin(&w, 3);
    w_g1s(&w, z->ic, (size_t)z->n_public + 1);
    cz_binw_end(&w);

    cz_binw_begin(&w, 4);
    cz_binw_u32(&w, (uint32_t)z->n_coefs);
    if (z->coef_rec) cz_binw_bytes(&w, z->coef_rec, 44 * z->n_coefs); /* as read, and checked */
    for (size_t i = 0; !z->coef_rec && i < z->n_coefs; i++) {
        const cz_zkey_coef *c = &z->coefs[i];
        cz_binw_u32(&w, c->matrix);
        cz_binw_u32(&w, c->constraint);
        cz_binw_u32(&w, c->signal);
        /* c·R^2: the Montgomery form of (c·R), i.e. from_raw of our limbs */
        cz_fr s;
        if (cz_fr_from_raw(&s, c->value.l) != CZ_OK) w.failed = true;
        uint8_t v[32];
        for (int k = 0; k < 32; k++) v[k] = (uint8_t)(s.l[k / 8] >> (8 * (k % 8)));
        cz_binw_bytes(&w, v, 32);
    }
    cz_binw_end(&w);

    cz_binw_begin(&w, 5);
    w_g1s(&w, z->a, z->n_vars);
    cz_binw_end(&w);
    cz_binw_begin(&w, 6);
    w_g1s(&w, z->b1, z->n_vars);
    cz_binw_end(&w);
    cz_binw_begin(&w, 7);
    w_g2s(&w, z->b2, z->n_vars);
    cz_binw_end(&w);
    cz_binw_begin(&w, 8);
    w_g1s(&w, z->c, (size_t)z->n_vars - z->n_public - 1);
    cz_binw_end(&w);
    cz_binw_begin(&w, 9);
    w_g1s(&w, z->h, z->domain_size);
    cz_binw_end(&w);

    /* §10: MPC parameters: 64-byte circuit hash (zeros: no ceremony
     * transcript) and zero contributions. */
    cz_binw_begin(&w, 10);
    uint8_t zero[64] = {0};
    cz_binw_bytes(&w, zero, 64);
    cz_binw_u32(&w, 0);
    cz_binw_end(&w);

    bool failed = w.failed;
    if (fclose(fp) != 0) failed = true;
    if (failed) return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    return CZ_OK;
}
