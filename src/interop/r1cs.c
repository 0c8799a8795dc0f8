/* circom .r1cs reader (iden3 format, version 1) and witness checker. */
#include "binfile.h"
#include "cuzk/snarkjs.h"
#include <stdlib.h>
#include <string.h>

void cz_snarkjs_r1cs_free(cz_snarkjs_r1cs *r)
{
    if (!r) return;
    for (int m = 0; m < 3; m++) {
        free(r->m[m].row_ptr);
        free(r->m[m].col);
        free(r->m[m].val);
    }
    free(r);
}

uint32_t cz_snarkjs_r1cs_n_public(const cz_snarkjs_r1cs *r) { return r->n_pub_out + r->n_pub_in; }

static const char *const MNAME[3] = {"A", "B", "C"};

/* One pass over section 2. With fill == false it only validates and counts
 * terms per matrix; with fill == true it writes the CSR arrays. */
static cz_status walk(cz_snarkjs_r1cs *r, const uint8_t *sec, uint64_t slen, bool fill, uint64_t count[3],
                      cz_errbuf *err)
{
    cz_rd rd = {sec, slen};
    uint64_t pos[3] = {0, 0, 0};
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            uint32_t nt;
            if (!cz_rd_u32(&rd, &nt))
                return cz_err(err, CZ_ERR_TRUNCATED, "r1cs: constraints section truncated at constraint %u (%s)", i,
                              MNAME[m]);
            if ((uint64_t)nt * 36 > rd.left)
                return cz_err(err, CZ_ERR_TRUNCATED,
                              "r1cs: constraint %u (%s) announces %u terms, section has room for %llu", i, MNAME[m],
                              nt, (unsigned long long)(rd.left / 36));
            if (fill) r->m[m].row_ptr[i] = pos[m];
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t wire = 0;
                const uint8_t *c = NULL;
                (void)cz_rd_u32(&rd, &wire);
                (void)cz_rd_bytes(&rd, &c, 32);
                if (wire >= r->n_wires)
                    return cz_err(err, CZ_ERR_FORMAT, "r1cs: constraint %u (%s) term %u: wire %u >= nWires %u", i,
                                  MNAME[m], t, wire, r->n_wires);
                cz_fr v;
                if (cz_fr_from_bytes_le(&v, c) != CZ_OK)
                    return cz_err(err, CZ_ERR_NOT_CANONICAL,
                                  "r1cs: constraint %u (%s) term %u: coefficient >= r", i, MNAME[m], t);
                if (fill) {
                    /* a repeated wire in one linear combination is ambiguous
                     * (snarkjs keeps the last); refuse it */
                    for (uint64_t k = r->m[m].row_ptr[i]; k < pos[m]; k++)
                        if (r->m[m].col[k] == wire)
                            return cz_err(err, CZ_ERR_FORMAT, "r1cs: constraint %u (%s): wire %u appears twice",
                                          i, MNAME[m], wire);
                    r->m[m].col[pos[m]] = wire;
                    r->m[m].val[pos[m]] = v;
                }
                pos[m]++;
            }
        }
    }
    for (int m = 0; m < 3; m++) {
        if (fill) r->m[m].row_ptr[r->n_constraints] = pos[m];
        count[m] = pos[m];
    }
    return CZ_OK;
}

cz_status cz_snarkjs_r1cs_parse(cz_snarkjs_r1cs **out, const uint8_t *buf, size_t len, cz_errbuf *err)
{
    *out = NULL;
    cz_binfile f;
    cz_status st = cz_binfile_open(&f, buf, len, "r1cs", 1, 1, err);
    if (st != CZ_OK) return st;
    cz_snarkjs_r1cs *r = calloc(1, sizeof *r);
    if (!r) {
        cz_binfile_close(&f);
        return cz_err(err, CZ_ERR_NOMEM, "r1cs: out of memory");
    }
    const uint8_t *h, *sec;
    uint64_t hlen, slen;
    if ((st = cz_binfile_section(&f, 1, "header", &h, &hlen, err)) != CZ_OK) goto fail;
    if ((st = cz_binfile_section(&f, 2, "constraints", &sec, &slen, err)) != CZ_OK) goto fail;
    cz_rd rd = {h, hlen};
    uint32_t n8;
    const uint8_t *prime;
    if (!cz_rd_u32(&rd, &n8) || n8 != 32 || !cz_rd_bytes(&rd, &prime, 32)) {
        st = cz_err(err, CZ_ERR_FORMAT, "r1cs: header: field size must be 32 bytes (BLS12-381 Fr)");
        goto fail;
    }
    if (!cz_prime_equals(prime, 32, CZ_FR_MODULUS, 4)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "r1cs: header: prime is not the BLS12-381 scalar field "
                                          "(compile with circom --prime bls12381)");
        goto fail;
    }
    if (!cz_rd_u32(&rd, &r->n_wires) || !cz_rd_u32(&rd, &r->n_pub_out) || !cz_rd_u32(&rd, &r->n_pub_in) ||
        !cz_rd_u32(&rd, &r->n_prv_in) || !cz_rd_u64(&rd, &r->n_labels) || !cz_rd_u32(&rd, &r->n_constraints)) {
        st = cz_err(err, CZ_ERR_TRUNCATED, "r1cs: header section truncated");
        goto fail;
    }
    if (r->n_wires == 0 || (uint64_t)1 + r->n_pub_out + r->n_pub_in + r->n_prv_in > r->n_wires) {
        st = cz_err(err, CZ_ERR_FORMAT, "r1cs: header: nWires %u cannot hold 1 + %u outputs + %u public + %u private",
                    r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);
        goto fail;
    }
    /* every constraint needs at least 12 bytes: bound before allocating */
    if ((uint64_t)r->n_constraints * 12 > slen) {
        st = cz_err(err, CZ_ERR_TRUNCATED, "r1cs: %u constraints announced, section has %llu bytes",
                    r->n_constraints, (unsigned long long)slen);
        goto fail;
    }
    uint64_t count[3];
    if ((st = walk(r, sec, slen, false, count, err)) != CZ_OK) goto fail;
    for (int m = 0; m < 3; m++) {
        r->m[m].row_ptr = calloc((size_t)r->n_constraints + 1, sizeof(uint64_t));
        r->m[m].col = malloc((count[m] ? count[m] : 1) * sizeof(uint32_t));
        r->m[m].val = malloc((count[m] ? count[m] : 1) * sizeof(cz_fr));
        if (!r->m[m].row_ptr || !r->m[m].col || !r->m[m].val) {
            st = cz_err(err, CZ_ERR_NOMEM, "r1cs: out of memory for %llu terms", (unsigned long long)count[m]);
            goto fail;
        }
    }
    if ((st = walk(r, sec, slen, true, count, err)) != CZ_OK) goto fail;
    cz_binfile_close(&f);
    *out = r;
    return CZ_OK;
fail:
    cz_binfile_close(&f);
    cz_snarkjs_r1cs_free(r);
    return st;
}

cz_status cz_snarkjs_r1cs_read(cz_snarkjs_r1cs **out, const char *path, cz_errbuf *err)
{
    const uint8_t *buf;
    size_t len;
    cz_status st = cz_map_file(path, &buf, &len, NULL, err);
    if (st != CZ_OK) return st;
    st = cz_snarkjs_r1cs_parse(out, buf, len, err);
    cz_unmap_file(buf, len);
    return st;
}

static void lc_eval(cz_fr *acc, const cz_snarkjs_csr *m, uint32_t row, const cz_fr *w)
{
    *acc = CZ_FR_ZERO;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        cz_fr t;
        cz_fr_mul(&t, &m->val[k], &w[m->col[k]]);
        cz_fr_add(acc, acc, &t);
    }
}

cz_status cz_snarkjs_r1cs_check(const cz_snarkjs_r1cs *r, const cz_fr *w, size_t n, size_t *bad, cz_errbuf *err)
{
    if (n != r->n_wires)
        return cz_err(err, CZ_ERR_MISMATCH, "witness has %zu values, circuit has %u wires", n, r->n_wires);
    if (!cz_fr_is_one(&w[0])) return cz_err(err, CZ_ERR_UNSATISFIED, "witness value 0 (the constant one) is not 1");
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        cz_fr a, b, c;
        lc_eval(&a, &r->m[0], i, w);
        lc_eval(&b, &r->m[1], i, w);
        lc_eval(&c, &r->m[2], i, w);
        cz_fr_mul(&a, &a, &b);
        if (!cz_fr_eq(&a, &c)) {
            if (bad) *bad = i;
            return cz_err(err, CZ_ERR_UNSATISFIED, "witness does not satisfy constraint %u of %u", i,
                          r->n_constraints);
        }
    }
    return CZ_OK;
}
