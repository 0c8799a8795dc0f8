/*
 * bellperson .params files and the in-memory parameter set.
 *
 * Layout (big-endian counts, uncompressed zcash point encodings):
 *   alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2
 *   u32 n, ic[n] | u32 n, h[n] | u32 n, l[n] | u32 n, a[n] | u32 n, b_g1[n]
 *   | u32 n, b_g2[n]
 * Reading validates before trusting: each count against the bytes left
 * (before allocating), then every point decoded in parallel: canonical
 * coordinates, on curve, not the identity (bellperson rejects identity
 * points everywhere) and, in CZ_PARAMS_VALIDATE_FULL, in the subgroup. The
 * subgroup test is most of the cost (a scalar multiplication or an
 * endomorphism check per point); CZ_PARAMS_VALIDATE_TRUSTED skips it for
 * the query arrays of a digest-checked file (see groth16.h). The verifying
 * key (the six fixed points and ic) is always validated fully: it is small
 * and it is what every proof is checked against.
 */
#include "cuzk/groth16.h"
#include "groth16_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void cz_groth16_params_free(cz_groth16_params *p)
{
    if (!p) return;
    cz_groth16_tables_free(p->tables);
    if (p->storage_kind == CZ_GROTH16_STORAGE_MAPPED) {
        /* every array points into one read-only mapping (params cache) */
        munmap(p->storage, p->storage_bytes);
        free(p);
        return;
    }
    free(p->vk.ic);
    free(p->h);
    free(p->l);
    free(p->a);
    free(p->b_g1);
    free(p->b_g2);
    free(p);
}

size_t cz_groth16_params_bytes(const cz_groth16_params *p)
{
    return sizeof *p + p->vk.n_ic * sizeof(cz_g1_affine) +
           (p->n_h + p->n_l + p->n_a + p->n_b) * sizeof(cz_g1_affine) + p->n_b * sizeof(cz_g2_affine);
}

size_t cz_groth16_params_domain(const cz_groth16_params *p) { return p->n_h + 1; }


cz_status cz_groth16_params_check_shape(const cz_groth16_params *p, const cz_pce *pce, cz_errbuf *err)
{
    uint64_t m = 1;
    while (m < pce->n_constraints) m <<= 1;
    uint64_t na = pce->n_inputs + pce->dens_a_aux_count;
    uint64_t nb = pce->dens_b_input_count + pce->dens_b_aux_count;
    if (p->vk.n_ic != pce->n_inputs)
        return cz_err(err, CZ_ERR_MISMATCH, "params: ic has %zu points, circuit has %llu inputs", p->vk.n_ic,
                      (unsigned long long)pce->n_inputs);
    if (p->n_h != m - 1)
        return cz_err(err, CZ_ERR_MISMATCH, "params: h has %zu points, circuit domain %llu needs %llu", p->n_h,
                      (unsigned long long)m, (unsigned long long)(m - 1));
    if (p->n_l != pce->n_aux)
        return cz_err(err, CZ_ERR_MISMATCH, "params: l has %zu points, circuit has %llu aux variables", p->n_l,
                      (unsigned long long)pce->n_aux);
    if (p->n_a != na)
        return cz_err(err, CZ_ERR_MISMATCH, "params: a has %zu points, circuit A-density needs %llu", p->n_a,
                      (unsigned long long)na);
    if (p->n_b != nb)
        return cz_err(err, CZ_ERR_MISMATCH, "params: b_g1/b_g2 have %zu points, circuit B-density needs %llu",
                      p->n_b, (unsigned long long)nb);
    return CZ_OK;
}

/* ---- writing ---- */
static bool put_u32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return fwrite(b, 1, 4, f) == 4;
}

static bool put_g1s(FILE *f, const cz_g1_affine *p, size_t n, bool count)
{
    if (count && (n > UINT32_MAX || !put_u32(f, (uint32_t)n))) return false;
    uint8_t b[96];
    for (size_t i = 0; i < n; i++) {
        cz_g1_serialize(b, &p[i]);
        if (fwrite(b, 1, 96, f) != 96) return false;
    }
    return true;
}

static bool put_g2s(FILE *f, const cz_g2_affine *p, size_t n, bool count)
{
    if (count && (n > UINT32_MAX || !put_u32(f, (uint32_t)n))) return false;
    uint8_t b[192];
    for (size_t i = 0; i < n; i++) {
        cz_g2_serialize(b, &p[i]);
        if (fwrite(b, 1, 192, f) != 192) return false;
    }
    return true;
}

cz_status cz_groth16_params_write(const cz_groth16_params *p, const char *path, cz_errbuf *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    static const size_t BUFSZ = 1 << 20;
    setvbuf(f, NULL, _IOFBF, BUFSZ);
    bool ok = put_g1s(f, &p->vk.alpha_g1, 1, false) && put_g1s(f, &p->vk.beta_g1, 1, false) &&
              put_g2s(f, &p->vk.beta_g2, 1, false) && put_g2s(f, &p->vk.gamma_g2, 1, false) &&
              put_g1s(f, &p->vk.delta_g1, 1, false) && put_g2s(f, &p->vk.delta_g2, 1, false) &&
              put_g1s(f, p->vk.ic, p->vk.n_ic, true) && put_g1s(f, p->h, p->n_h, true) &&
              put_g1s(f, p->l, p->n_l, true) && put_g1s(f, p->a, p->n_a, true) &&
              put_g1s(f, p->b_g1, p->n_b, true) && put_g2s(f, p->b_g2, p->n_b, true);
    if (fclose(f) != 0) ok = false;
    if (!ok) return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    return CZ_OK;
}

/* ---- reading ---- */
enum { ARR_IC, ARR_H, ARR_L, ARR_A, ARR_B1, ARR_B2, ARR_N };
static const char *const ARR_NAME[ARR_N] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

typedef struct {
    const uint8_t *src[ARR_N]; /* first encoded point of each array */
    void *dst[ARR_N];
    size_t n[ARR_N];
    _Atomic size_t bad;        /* flattened index of the first failure */
    _Atomic int bad_status;
    bool trusted;              /* skip the subgroup test beyond ic */
} load_ctx;

static void decode_range(void *arg, size_t lo, size_t hi)
{
    load_ctx *c = arg;
    size_t i = lo;
    int k = 0;
    size_t base = 0;
    while (k < ARR_N && i >= base + c->n[k]) base += c->n[k++];
    for (; i < hi; i++) {
        while (i >= base + c->n[k]) base += c->n[k++];
        size_t j = i - base;
        cz_status st;
        bool unchecked = c->trusted && k != ARR_IC;
        if (k == ARR_B2) {
            cz_g2_affine *q = (cz_g2_affine *)c->dst[k] + j;
            st = unchecked ? cz_g2_deserialize_unchecked(q, c->src[k] + 192 * j)
                           : cz_g2_deserialize(q, c->src[k] + 192 * j);
            if (st == CZ_OK && cz_g2_affine_is_infinity(q)) st = CZ_ERR_IDENTITY;
        } else {
            cz_g1_affine *q = (cz_g1_affine *)c->dst[k] + j;
            st = unchecked ? cz_g1_deserialize_unchecked(q, c->src[k] + 96 * j)
                           : cz_g1_deserialize(q, c->src[k] + 96 * j);
            if (st == CZ_OK && cz_g1_affine_is_infinity(q)) st = CZ_ERR_IDENTITY;
        }
        if (st != CZ_OK) {
            size_t expect = SIZE_MAX;
            if (atomic_compare_exchange_strong(&c->bad, &expect, i)) atomic_store(&c->bad_status, (int)st);
            return;
        }
        if (atomic_load_explicit(&c->bad, memory_order_relaxed) != SIZE_MAX) return;
    }
}

static cz_status vk_point_g1(cz_g1_affine *p, const uint8_t **cur, const uint8_t *end, const char *name,
                             cz_errbuf *err)
{
    if (end - *cur < 96) return cz_err(err, CZ_ERR_TRUNCATED, "params: file ends inside vk %s", name);
    cz_status st = cz_g1_deserialize(p, *cur);
    if (st == CZ_OK && cz_g1_affine_is_infinity(p)) st = CZ_ERR_IDENTITY;
    if (st != CZ_OK) return cz_err(err, st, "params: vk %s: %s", name, cz_status_str(st));
    *cur += 96;
    return CZ_OK;
}

static cz_status vk_point_g2(cz_g2_affine *p, const uint8_t **cur, const uint8_t *end, const char *name,
                             cz_errbuf *err)
{
    if (end - *cur < 192) return cz_err(err, CZ_ERR_TRUNCATED, "params: file ends inside vk %s", name);
    cz_status st = cz_g2_deserialize(p, *cur);
    if (st == CZ_OK && cz_g2_affine_is_infinity(p)) st = CZ_ERR_IDENTITY;
    if (st != CZ_OK) return cz_err(err, st, "params: vk %s: %s", name, cz_status_str(st));
    *cur += 192;
    return CZ_OK;
}

cz_status cz_groth16_params_parse(cz_groth16_params **out, const uint8_t *buf, size_t len, cz_pool *pool,
                                  cz_errbuf *err)
{
    return cz_groth16_params_parse_ex(out, buf, len, pool, CZ_PARAMS_VALIDATE_FULL, err);
}

cz_status cz_groth16_params_parse_ex(cz_groth16_params **out, const uint8_t *buf, size_t len, cz_pool *pool,
                                     cz_params_validate mode, cz_errbuf *err)
{
    *out = NULL;
    if (mode != CZ_PARAMS_VALIDATE_FULL && mode != CZ_PARAMS_VALIDATE_TRUSTED)
        return cz_err(err, CZ_ERR_INVALID_ARG, "params: unknown validation mode %d", (int)mode);
    const uint8_t *cur = buf, *end = buf + len;
    cz_groth16_params *p = calloc(1, sizeof *p);
    if (!p) return cz_err(err, CZ_ERR_NOMEM, "params: out of memory");
    cz_status st;
    if ((st = vk_point_g1(&p->vk.alpha_g1, &cur, end, "alpha_g1", err)) != CZ_OK ||
        (st = vk_point_g1(&p->vk.beta_g1, &cur, end, "beta_g1", err)) != CZ_OK ||
        (st = vk_point_g2(&p->vk.beta_g2, &cur, end, "beta_g2", err)) != CZ_OK ||
        (st = vk_point_g2(&p->vk.gamma_g2, &cur, end, "gamma_g2", err)) != CZ_OK ||
        (st = vk_point_g1(&p->vk.delta_g1, &cur, end, "delta_g1", err)) != CZ_OK ||
        (st = vk_point_g2(&p->vk.delta_g2, &cur, end, "delta_g2", err)) != CZ_OK)
        goto fail;

    load_ctx c;
    memset(&c, 0, sizeof c);
    atomic_init(&c.bad, SIZE_MAX);
    atomic_init(&c.bad_status, 0);
    c.trusted = mode == CZ_PARAMS_VALIDATE_TRUSTED;
    for (int k = 0; k < ARR_N; k++) {
        size_t psz = k == ARR_B2 ? 192 : 96;
        if (end - cur < 4) {
            st = cz_err(err, CZ_ERR_TRUNCATED, "params: file ends before the %s count", ARR_NAME[k]);
            goto fail_arrays;
        }
        uint32_t n = (uint32_t)cur[0] << 24 | (uint32_t)cur[1] << 16 | (uint32_t)cur[2] << 8 | cur[3];
        cur += 4;
        if ((uint64_t)n * psz > (uint64_t)(end - cur)) {
            st = cz_err(err, CZ_ERR_TRUNCATED, "params: %s announces %u points (%llu bytes), only %zu bytes remain",
                        ARR_NAME[k], n, (unsigned long long)n * psz, (size_t)(end - cur));
            goto fail_arrays;
        }
        c.n[k] = n;
        c.src[k] = cur;
        c.dst[k] = malloc((n ? n : 1) * (k == ARR_B2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine)));
        if (!c.dst[k]) {
            st = cz_err(err, CZ_ERR_NOMEM, "params: out of memory for %u %s points", n, ARR_NAME[k]);
            goto fail_arrays;
        }
        cur += (size_t)n * psz;
    }
    p->vk.ic = c.dst[ARR_IC];
    p->vk.n_ic = c.n[ARR_IC];
    p->h = c.dst[ARR_H];
    p->n_h = c.n[ARR_H];
    p->l = c.dst[ARR_L];
    p->n_l = c.n[ARR_L];
    p->a = c.dst[ARR_A];
    p->n_a = c.n[ARR_A];
    p->b_g1 = c.dst[ARR_B1];
    p->n_b = c.n[ARR_B1];
    p->b_g2 = c.dst[ARR_B2];
    if (cur != end) {
        st = cz_err(err, CZ_ERR_FORMAT, "params: %zu trailing bytes after b_g2", (size_t)(end - cur));
        goto fail;
    }
    if (c.n[ARR_B1] != c.n[ARR_B2]) {
        st = cz_err(err, CZ_ERR_FORMAT, "params: b_g1 has %zu points but b_g2 has %zu", c.n[ARR_B1], c.n[ARR_B2]);
        goto fail;
    }
    if (c.n[ARR_IC] == 0) {
        st = cz_err(err, CZ_ERR_FORMAT, "params: ic is empty (the constant-one input needs a point)");
        goto fail;
    }
    size_t total = 0;
    for (int k = 0; k < ARR_N; k++) total += c.n[k];
    cz_pool_parallel_range(pool, 0, total, 512, decode_range, &c);
    size_t bad = atomic_load(&c.bad);
    if (bad != SIZE_MAX) {
        int k = 0;
        while (bad >= c.n[k]) bad -= c.n[k++];
        st = (cz_status)atomic_load(&c.bad_status);
        st = cz_err(err, st, "params: %s point %zu (byte offset %zu): %s", ARR_NAME[k], bad,
                    (size_t)(c.src[k] - buf) + bad * (k == ARR_B2 ? 192 : 96), cz_status_str(st));
        goto fail;
    }
    *out = p;
    return CZ_OK;
fail_arrays:
    /* arrays not yet handed to p */
    for (int k = 0; k < ARR_N; k++) free(c.dst[k]);
fail:
    cz_groth16_params_free(p);
    return st;
}

cz_status cz_groth16_params_read(cz_groth16_params **out, const char *path, const cz_pce *pce, cz_pool *pool,
                                 cz_errbuf *err)
{
    return cz_groth16_params_read_ex(out, path, pce, pool, CZ_PARAMS_VALIDATE_FULL, err);
}

cz_status cz_groth16_params_read_ex(cz_groth16_params **out, const char *path, const cz_pce *pce, cz_pool *pool,
                                    cz_params_validate mode, cz_errbuf *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return cz_err(err, CZ_ERR_IO, "%s: not a readable regular file", path);
    }
    size_t len = (size_t)sb.st_size;
    if (len == 0) {
        close(fd);
        return cz_err(err, CZ_ERR_TRUNCATED, "%s: empty file", path);
    }
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return cz_err(err, CZ_ERR_IO, "%s: mmap: %s", path, strerror(errno));
    madvise(m, len, MADV_SEQUENTIAL);
    cz_groth16_params *p = NULL;
    cz_status st = cz_groth16_params_parse_ex(&p, m, len, pool, mode, err);
    munmap(m, len);
    if (st != CZ_OK) return st;
    if (pce && (st = cz_groth16_params_check_shape(p, pce, err)) != CZ_OK) {
        cz_groth16_params_free(p);
        return st;
    }
    *out = p;
    return CZ_OK;
}
