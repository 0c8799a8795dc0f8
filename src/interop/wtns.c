/* snarkjs .wtns reader/writer (version 2). */
#include "common/big_alloc.h"
#include "binfile.h"
#include "cuzk/snarkjs.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cz_snarkjs_wtns_free(cz_snarkjs_wtns *w)
{
    if (!w) return;
    free(w->w);
    free(w);
}

/* The values are decoded in parallel: a 2^20 circuit has a million, and
 * their output pages are first touched here (serially ~75 ms of a
 * `cuzk prove --zkey` process at 2^20 on two cores, the other idle). */
typedef struct {
    cz_fr *out;
    const uint8_t *in;
} wtns_ctx;

static bool value_ok(void *arg, size_t i)
{
    const wtns_ctx *x = arg;
    return cz_fr_from_bytes_le(&x->out[i], x->in + 32 * i) == CZ_OK;
}

cz_status cz_snarkjs_wtns_parse(cz_snarkjs_wtns **out, const uint8_t *buf, size_t len, cz_pool *pool,
                                cz_errbuf *err)
{
    *out = NULL;
    cz_binfile f;
    cz_status st = cz_binfile_open(&f, buf, len, "wtns", 2, 2, err);
    if (st != CZ_OK) return st;
    const uint8_t *h, *v;
    uint64_t hlen, vlen;
    cz_snarkjs_wtns *w = NULL;
    if ((st = cz_binfile_section(&f, 1, "header", &h, &hlen, err)) != CZ_OK) goto done;
    if ((st = cz_binfile_section(&f, 2, "values", &v, &vlen, err)) != CZ_OK) goto done;
    cz_rd rd = {h, hlen};
    uint32_t n8, n;
    const uint8_t *prime;
    if (!cz_rd_u32(&rd, &n8) || n8 != 32 || !cz_rd_bytes(&rd, &prime, 32) || !cz_rd_u32(&rd, &n)) {
        st = cz_err(err, CZ_ERR_FORMAT, "wtns: header: field size must be 32 bytes (BLS12-381 Fr)");
        goto done;
    }
    if (!cz_prime_equals(prime, 32, CZ_FR_MODULUS, 4)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "wtns: header: prime is not the BLS12-381 scalar field");
        goto done;
    }
    if ((uint64_t)n * 32 != vlen) {
        st = cz_err(err, CZ_ERR_FORMAT, "wtns: %u values announced, values section has %llu bytes (expected %llu)", n,
                    (unsigned long long)vlen, (unsigned long long)n * 32);
        goto done;
    }
    w = calloc(1, sizeof *w);
    if (!w || !(w->w = cz_big_alloc_array(n ? n : 1, sizeof(cz_fr)))) {
        st = cz_err(err, CZ_ERR_NOMEM, "wtns: out of memory for %u values", n);
        goto done;
    }
    w->n = n;
    wtns_ctx x = {w->w, v};
    size_t bad = cz_bin_first_failing(pool, n, 16384, value_ok, &x);
    if (bad != SIZE_MAX) {
        st = cz_err(err, CZ_ERR_NOT_CANONICAL, "wtns: value %zu is >= r", bad);
        goto done;
    }
    *out = w;
    w = NULL;
done:
    cz_snarkjs_wtns_free(w);
    cz_binfile_close(&f);
    return st;
}

cz_status cz_snarkjs_wtns_read(cz_snarkjs_wtns **out, const char *path, cz_pool *pool, cz_errbuf *err)
{
    const uint8_t *buf;
    size_t len;
    cz_status st = cz_map_file(path, &buf, &len, pool, err);
    if (st != CZ_OK) return st;
    st = cz_snarkjs_wtns_parse(out, buf, len, pool, err);
    cz_unmap_file(buf, len);
    return st;
}

cz_status cz_snarkjs_wtns_write(const char *path, const cz_fr *w, size_t n, cz_errbuf *err)
{
    if (n > UINT32_MAX) return cz_err(err, CZ_ERR_INVALID_ARG, "wtns: %zu values exceed the format's u32 count", n);
    FILE *fp = fopen(path, "wb");
    if (!fp) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    cz_binwriter bw = {fp, 0, false};
    cz_binw_header(&bw, "wtns", 2, 2);
    cz_binw_begin(&bw, 1);
    cz_binw_u32(&bw, 32);
    uint8_t b[32];
    for (int i = 0; i < 32; i++) b[i] = (uint8_t)(CZ_FR_MODULUS[i / 8] >> (8 * (i % 8)));
    cz_binw_bytes(&bw, b, 32);
    cz_binw_u32(&bw, (uint32_t)n);
    cz_binw_end(&bw);
    cz_binw_begin(&bw, 2);
    for (size_t i = 0; i < n; i++) {
        cz_fr_to_bytes_le(b, &w[i]);
        cz_binw_bytes(&bw, b, 32);
    }
    cz_binw_end(&bw);
    bool failed = bw.failed;
    if (fclose(fp) != 0) failed = true;
    if (failed) return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    return CZ_OK;
}
