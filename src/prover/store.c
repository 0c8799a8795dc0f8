/*
 * The parameter store: <dir>/<id>.{pce,params,meta,cache} (see prover.h).
 *
 * Cache file (host-specific, rebuilt whenever it does not check out):
 *   header (4096 bytes): "CUZKPRMC" | u32 version | u32 0 | u64 n_ic, n_h,
 *     n_l, n_a, n_b | circuit hash (32) | u64 total length
 *   vk: alpha_g1, beta_g1, delta_g1 (G1) | beta_g2, gamma_g2, delta_g2 (G2)
 *   ic, h, l, a, b_g1 (G1 affine, in-memory form) | b_g2 (G2)
 *   SHA-256 of every byte before it (32)
 * The arrays are used in place from a read-only mapping.
 */
#include "prover_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "CUZKPRMC"
#define CACHE_VERSION 1u
#define CACHE_HEADER 4096u


static uint64_t domain_of(const cz_pce *pce)
{
    uint64_t m = 1;
    while (m < pce->n_constraints) m <<= 1;
    return m;
}

uint64_t cz__params_bytes_for(const cz_pce *pce)
{
    uint64_t m = domain_of(pce);
    uint64_t na = pce->n_inputs + pce->dens_a_aux_count;
    uint64_t nb = pce->dens_b_input_count + pce->dens_b_aux_count;
    return (pce->n_inputs + (m - 1) + pce->n_aux + na + nb) * sizeof(cz_g1_affine) + nb * sizeof(cz_g2_affine) +
           CACHE_HEADER;
}

static void path_of(char *out, size_t n, const char *base, const char *ext)
{
    snprintf(out, n, "%s.%s", base, ext);
}

static void logf_(FILE *log, const char *fmt, const char *a, const char *b)
{
    if (log) {
        fprintf(log, fmt, a, b);
        fflush(log);
    }
}

/* ---- sidecar ---- */
static cz_status meta_write(const char *path, const char *id, const cz_pce *pce, cz_errbuf *err)
{
    char hex[65];
    cz_pce_hash_hex(pce, hex);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: %s", tmp, strerror(errno));
    fprintf(f, "cuzk-params-meta 1\ncircuit %s\ncircuit_hash %s\nn_constraints %llu\nn_inputs %llu\nn_aux %llu\n"
               "domain %llu\n",
            id, hex, (unsigned long long)pce->n_constraints, (unsigned long long)pce->n_inputs,
            (unsigned long long)pce->n_aux, (unsigned long long)domain_of(pce));
    if (fclose(f) != 0 || rename(tmp, path) != 0) return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    return CZ_OK;
}

/* CZ_OK when the sidecar names this circuit (hash), CZ_ERR_MISMATCH when it
 * names another, CZ_ERR_NOT_FOUND when it is missing. */
static cz_status meta_check(const char *path, const cz_pce *pce, cz_errbuf *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return cz_err(err, CZ_ERR_NOT_FOUND, "%s: missing sidecar", path);
    char line[512], want[65];
    cz_pce_hash_hex(pce, want);
    bool ok = false, seen = false;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "circuit_hash ", 13)) {
            seen = true;
            line[strcspn(line, "\n")] = 0;
            ok = !strcmp(line + 13, want);
        }
    }
    fclose(f);
    if (!seen) return cz_err(err, CZ_ERR_FORMAT, "%s: no circuit_hash line", path);
    if (!ok)
        return cz_err(err, CZ_ERR_MISMATCH,
                      "%s: the parameters were made for another circuit (hash differs from the recorded circuit %s)",
                      path, want);
    return CZ_OK;
}

/* ---- cache ---- */
static void sha_update(EVP_MD_CTX *c, const void *p, size_t n) { EVP_DigestUpdate(c, p, n); }

static cz_status cache_write(const char *path, const cz_groth16_params *p, const cz_pce *pce, cz_errbuf *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: %s", tmp, strerror(errno));
    uint8_t *hdr = calloc(1, CACHE_HEADER);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!hdr || !c) {
        fclose(f);
        free(hdr);
        EVP_MD_CTX_free(c);
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    }
    uint64_t counts[5] = {p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b};
    uint64_t total = CACHE_HEADER + 3 * sizeof(cz_g1_affine) + 3 * sizeof(cz_g2_affine) +
                     (counts[0] + counts[1] + counts[2] + counts[3] + counts[4]) * sizeof(cz_g1_affine) +
                     counts[4] * sizeof(cz_g2_affine) + 32;
    memcpy(hdr, CACHE_MAGIC, 8);
    uint32_t v = CACHE_VERSION;
    memcpy(hdr + 8, &v, 4);
    memcpy(hdr + 16, counts, sizeof counts);
    memcpy(hdr + 56, pce->circuit_hash, 32);
    memcpy(hdr + 88, &total, 8);
    EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    bool ok = true;
#define PUT(ptr, n)                                                              \
    do {                                                                         \
        if (ok && (n) != 0 && fwrite((ptr), 1, (n), f) != (n)) ok = false;       \
        sha_update(c, (ptr), (n));                                               \
    } while (0)
    PUT(hdr, CACHE_HEADER);
    PUT(&p->vk.alpha_g1, sizeof(cz_g1_affine));
    PUT(&p->vk.beta_g1, sizeof(cz_g1_affine));
    PUT(&p->vk.delta_g1, sizeof(cz_g1_affine));
    PUT(&p->vk.beta_g2, sizeof(cz_g2_affine));
    PUT(&p->vk.gamma_g2, sizeof(cz_g2_affine));
    PUT(&p->vk.delta_g2, sizeof(cz_g2_affine));
    PUT(p->vk.ic, counts[0] * sizeof(cz_g1_affine));
    PUT(p->h, counts[1] * sizeof(cz_g1_affine));
    PUT(p->l, counts[2] * sizeof(cz_g1_affine));
    PUT(p->a, counts[3] * sizeof(cz_g1_affine));
    PUT(p->b_g1, counts[4] * sizeof(cz_g1_affine));
    PUT(p->b_g2, counts[4] * sizeof(cz_g2_affine));
#undef PUT
    uint8_t digest[32];
    unsigned dl = 32;
    EVP_DigestFinal_ex(c, digest, &dl);
    if (ok && fwrite(digest, 1, 32, f) != 32) ok = false;
    EVP_MD_CTX_free(c);
    free(hdr);
    if (fclose(f) != 0) ok = false;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    }
    return CZ_OK;
}

static cz_status cache_load(const char *path, const cz_pce *pce, cz_groth16_params **out, cz_errbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_err(err, CZ_ERR_NOT_FOUND, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < CACHE_HEADER + 32) {
        close(fd);
        return cz_err(err, CZ_ERR_TRUNCATED, "%s: too short", path);
    }
    size_t len = (size_t)sb.st_size;
    uint8_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return cz_err(err, CZ_ERR_IO, "%s: mmap: %s", path, strerror(errno));
    cz_status st = CZ_OK;
    uint64_t counts[5], total;
    uint32_t v;
    memcpy(&v, m + 8, 4);
    memcpy(counts, m + 16, sizeof counts);
    memcpy(&total, m + 88, 8);
    if (memcmp(m, CACHE_MAGIC, 8) || v != CACHE_VERSION) {
        st = cz_err(err, CZ_ERR_FORMAT, "%s: not a cuzk params cache (magic/version)", path);
        goto fail;
    }
    if (total != len) {
        st = cz_err(err, CZ_ERR_TRUNCATED, "%s: length %zu, header says %llu", path, len, (unsigned long long)total);
        goto fail;
    }
    if (memcmp(m + 56, pce->circuit_hash, 32)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "%s: cache belongs to another circuit", path);
        goto fail;
    }
    uint64_t expect = CACHE_HEADER + 3 * sizeof(cz_g1_affine) + 3 * sizeof(cz_g2_affine) +
                      (counts[0] + counts[1] + counts[2] + counts[3] + counts[4]) * sizeof(cz_g1_affine) +
                      counts[4] * sizeof(cz_g2_affine) + 32;
    if (expect != len) {
        st = cz_err(err, CZ_ERR_FORMAT, "%s: counts do not match the length", path);
        goto fail;
    }
    uint8_t digest[32];
    unsigned dl = 32;
    if (!EVP_Digest(m, len - 32, digest, &dl, EVP_sha256(), NULL) || memcmp(digest, m + len - 32, 32)) {
        st = cz_err(err, CZ_ERR_FORMAT, "%s: checksum mismatch (corrupt cache)", path);
        goto fail;
    }
    cz_groth16_params *p = calloc(1, sizeof *p);
    if (!p) {
        st = cz_err(err, CZ_ERR_NOMEM, "out of memory");
        goto fail;
    }
    const uint8_t *q = m + CACHE_HEADER;
    memcpy(&p->vk.alpha_g1, q, sizeof(cz_g1_affine));
    q += sizeof(cz_g1_affine);
    memcpy(&p->vk.beta_g1, q, sizeof(cz_g1_affine));
    q += sizeof(cz_g1_affine);
    memcpy(&p->vk.delta_g1, q, sizeof(cz_g1_affine));
    q += sizeof(cz_g1_affine);
    memcpy(&p->vk.beta_g2, q, sizeof(cz_g2_affine));
    q += sizeof(cz_g2_affine);
    memcpy(&p->vk.gamma_g2, q, sizeof(cz_g2_affine));
    q += sizeof(cz_g2_affine);
    memcpy(&p->vk.delta_g2, q, sizeof(cz_g2_affine));
    q += sizeof(cz_g2_affine);
    p->vk.ic = (cz_g1_affine *)q;
    p->vk.n_ic = counts[0];
    q += counts[0] * sizeof(cz_g1_affine);
    p->h = (cz_g1_affine *)q;
    p->n_h = counts[1];
    q += counts[1] * sizeof(cz_g1_affine);
    p->l = (cz_g1_affine *)q;
    p->n_l = counts[2];
    q += counts[2] * sizeof(cz_g1_affine);
    p->a = (cz_g1_affine *)q;
    p->n_a = counts[3];
    q += counts[3] * sizeof(cz_g1_affine);
    p->b_g1 = (cz_g1_affine *)q;
    p->n_b = counts[4];
    q += counts[4] * sizeof(cz_g1_affine);
    p->b_g2 = (cz_g2_affine *)q;
    p->storage = m;
    p->storage_bytes = len;
    p->storage_kind = CZ_GROTH16_STORAGE_MAPPED;
    if ((st = cz_groth16_params_check_shape(p, pce, err)) != CZ_OK) {
        cz_groth16_params_free(p); /* unmaps */
        return st;
    }
    *out = p;
    return CZ_OK;
fail:
    munmap(m, len);
    return st;
}

typedef struct {
    FILE *log;
    const char *id;
    double last;
} progress_ctx;

static void progress(void *arg, const char *stage, double f)
{
    progress_ctx *c = arg;
    if (!c->log) return;
    if (f >= 1.0 || f - c->last >= 0.25) {
        fprintf(c->log, "setup %s: %s %3.0f%%\n", c->id, stage, 100 * f);
        fflush(c->log);
        c->last = f >= 1.0 ? 0 : f;
    }
}

cz_status cz__store_load(const char *base, const char *id, const cz_pce *pce, bool auto_setup, cz_pool *pool,
                         FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out, cz_errbuf *err)
{
    char pp[4096], mp[4096], cp[4096], xp[4096];
    path_of(pp, sizeof pp, base, "params");
    path_of(mp, sizeof mp, base, "meta");
    path_of(cp, sizeof cp, base, "cache");
    path_of(xp, sizeof xp, base, "pce");
    cz_errbuf e2;
    cz_status st;
    bool have_params = access(pp, R_OK) == 0;
    if (have_params) {
        if ((st = meta_check(mp, pce, err)) != CZ_OK) return st;
        if (cache_load(cp, pce, out, &e2) == CZ_OK) return CZ_OK;
        logf_(log, "params %s: cache not usable (%s); loading the .params file\n", id, e2.msg);
        if ((st = cz_groth16_params_read(out, pp, pce, pool, err)) != CZ_OK) return st;
    } else {
        if (!auto_setup)
            return cz_err(err, CZ_ERR_NOT_FOUND, "no parameters for circuit %s at %s (run `cuzk setup --circuit %s`)",
                          id, pp, id);
        logf_(log, "params %s: none at %s, running a local setup\n", id, pp);
        progress_ctx pc = {log, id, 0};
        cz_groth16_setup_opts so = {.progress = progress, .progress_arg = &pc, .h_odd_out = h_odd};
        if ((st = cz_groth16_setup(out, pce, pool, &so, err)) != CZ_OK) return st;
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", pp);
        if ((st = cz_groth16_params_write(*out, tmp, err)) != CZ_OK ||
            (st = meta_write(mp, id, pce, err)) != CZ_OK) {
            unlink(tmp);
            cz_groth16_params_free(*out);
            *out = NULL;
            return st;
        }
        if (rename(tmp, pp) != 0) {
            cz_groth16_params_free(*out);
            *out = NULL;
            return cz_err(err, CZ_ERR_IO, "%s: %s", pp, strerror(errno));
        }
        if (access(xp, R_OK) != 0) {
            char msg[256];
            if (cz_pce_save(pce, xp, msg, sizeof msg) != CZ_OK) logf_(log, "pce %s: %s\n", xp, msg);
        }
    }
    /* (re)build the cache from the validated parameters; a failure here
     * only costs the next load its speed */
    if (cache_write(cp, *out, pce, &e2) != CZ_OK) logf_(log, "params %s: cannot write cache: %s\n", id, e2.msg);
    return CZ_OK;
}
