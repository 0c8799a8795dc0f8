/*
 * The parameter store: <dir>/<id>.{pce,params,meta,cache} (see prover.h),
 * and for Filecoin circuits the ceremony's v28 file in
 * $FIL_PROOFS_PARAMETER_CACHE with <dir>/<id>.v28-verified (docs/
 * parameters.md).
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
#include "cuzk/filecoin.h"
#include "cuzk/fil_params.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
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

static void logv_(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logv_(FILE *log, const char *fmt, ...)
{
    if (!log) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(log, fmt, ap);
    va_end(ap);
    fflush(log);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

/* digest_out (nullable) receives the cache's trailing SHA-256. */
static cz_status cache_write(const char *path, const cz_groth16_params *p, const uint8_t circuit_hash[32],
                             uint8_t digest_out[32], cz_errbuf *err)
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
    memcpy(hdr + 56, circuit_hash, 32);
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
    if (digest_out) memcpy(digest_out, digest, 32);
    EVP_MD_CTX_free(c);
    free(hdr);
    if (fclose(f) != 0) ok = false;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    }
    return CZ_OK;
}

/* expect_sha (nullable): the cache must be the one whose trailing
 * checksum is this (the one written from a verified ceremony file). */
static cz_status cache_load(const char *path, const uint8_t circuit_hash[32], const cz_pce *pce,
                            const uint8_t *expect_sha, cz_groth16_params **out, cz_errbuf *err)
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
    if (memcmp(m + 56, circuit_hash, 32)) {
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
    if (expect_sha && memcmp(expect_sha, m + len - 32, 32)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "%s: not the cache made from the verified parameter file", path);
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
    if (pce && (st = cz_groth16_params_check_shape(p, pce, err)) != CZ_OK) {
        cz_groth16_params_free(p); /* unmaps */
        return st;
    }
    *out = p;
    return CZ_OK;
fail:
    munmap(m, len);
    return st;
}

cz_status cz__cache_write(const char *path, const cz_groth16_params *p, const uint8_t circuit_hash[32],
                          cz_errbuf *err)
{
    return cache_write(path, p, circuit_hash, NULL, err);
}

cz_status cz__cache_load(const char *path, const uint8_t circuit_hash[32], cz_groth16_params **out, cz_errbuf *err)
{
    *out = NULL;
    return cache_load(path, circuit_hash, NULL, NULL, out, err);
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

/* ---- Filecoin ceremony files ---------------------------------------------- */
static bool is_hex32(const char *s)
{
    if (strlen(s) != CZ_FIL_PARAMS_DIGEST_HEX) return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F'))) return false;
    return true;
}

cz_status cz__fil_expected_digest(const char *name, char digest[33], cz_errbuf *err)
{
    digest[0] = 0;
    const char *ov = getenv(CZ_FIL_DIGESTS_ENV);
    if (ov && *ov) {
        /* the whole file is checked, not only the entry asked for: a typo
         * elsewhere in it must not wait for the day that entry is used */
        FILE *f = fopen(ov, "r");
        if (!f) return cz_err(err, CZ_ERR_IO, "$%s=%s: %s", CZ_FIL_DIGESTS_ENV, ov, strerror(errno));
        json_error_t je;
        json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
        fclose(f);
        if (!root)
            return cz_err(err, CZ_ERR_FORMAT, "$%s=%s: %s (line %d)", CZ_FIL_DIGESTS_ENV, ov, je.text, je.line);
        cz_status st = CZ_OK;
        if (!json_is_object(root)) st = cz_err(err, CZ_ERR_FORMAT, "$%s=%s: not a JSON object", CZ_FIL_DIGESTS_ENV, ov);
        const char *k;
        json_t *v;
        json_object_foreach(root, k, v)
        {
            if (st != CZ_OK) break;
            if (!json_is_string(v) || !is_hex32(json_string_value(v)))
                st = cz_err(err, CZ_ERR_FORMAT, "$%s=%s: \"%s\" must map to 32 hex digits", CZ_FIL_DIGESTS_ENV,
                            ov, k);
            else if (!strcmp(k, name))
                for (unsigned j = 0; j <= CZ_FIL_PARAMS_DIGEST_HEX; j++) {
                    char c = json_string_value(v)[j];
                    digest[j] = (char)(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
                }
        }
        json_decref(root);
        if (st != CZ_OK) {
            digest[0] = 0;
            return st;
        }
        if (digest[0]) return CZ_OK;
    }
    const cz_fil_params_entry *e = cz_fil_params_lookup(name);
    if (!e)
        return cz_err(err, CZ_ERR_NOT_FOUND, "%s: no published digest (and none in $%s)", name, CZ_FIL_DIGESTS_ENV);
    snprintf(digest, CZ_FIL_PARAMS_DIGEST_HEX + 1, "%s", e->digest);
    return CZ_OK;
}

cz_status cz__fil_v28_source(const char *id, char *path, size_t cap, char digest[33], cz_errbuf *err)
{
    path[0] = 0;
    digest[0] = 0;
    const cz_fil_seal_proof *p = NULL;
    for (size_t i = 0; i < cz_fil_seal_proofs_count && !p; i++)
        if (cz_fil_seal_proofs[i].circuit_id && !strcmp(cz_fil_seal_proofs[i].circuit_id, id))
            p = &cz_fil_seal_proofs[i];
    if (!p) return CZ_OK;
    cz_fil_params_set set;
    cz_status st;
    if ((st = cz_fil_params_set_porep(&set, p)) != CZ_OK ||
        (st = cz_fil_params_path(&set, NULL, CZ_FIL_PARAMS_FILE_PARAMS, path, cap)) != CZ_OK) {
        path[0] = 0;
        return cz_err(err, st, "circuit %s: cannot name its Filecoin parameter file", id);
    }
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    cz_errbuf e2;
    st = cz__fil_expected_digest(name, digest, &e2);
    if (st == CZ_ERR_NOT_FOUND) return CZ_OK; /* the store says so, naming the path */
    if (st != CZ_OK) return cz_err(err, st, "%s", e2.msg);
    return CZ_OK;
}

/* What the stamp remembers of a file: enough that any rewrite, truncation,
 * replacement or touch of it shows (ctime changes even when a writer puts
 * the old mtime back). */
typedef struct {
    uint64_t size, ino;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
} file_id;

static void file_id_of(file_id *f, const struct stat *sb)
{
    f->size = (uint64_t)sb->st_size;
    f->ino = (uint64_t)sb->st_ino;
    f->mtime_s = (int64_t)sb->st_mtim.tv_sec;
    f->mtime_ns = (int64_t)sb->st_mtim.tv_nsec;
    f->ctime_s = (int64_t)sb->st_ctim.tv_sec;
    f->ctime_ns = (int64_t)sb->st_ctim.tv_nsec;
}

static bool file_id_eq(const file_id *a, const file_id *b)
{
    return a->size == b->size && a->ino == b->ino && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
           a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

typedef struct {
    char path[4096];
    file_id f;
    char digest[33];
    bool has_cache;
    uint8_t cache_sha[32];
} stamp_t;

#define STAMP_MAGIC "cuzk-v28-verified 1"

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* false when missing or malformed (either way: verify again) */
static bool stamp_read(const char *sp, stamp_t *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(sp, "r");
    if (!f) return false;
    char line[4200];
    unsigned seen = 0;
    bool ok = fgets(line, sizeof line, f) && !strncmp(line, STAMP_MAGIC "\n", sizeof STAMP_MAGIC);
    while (ok && fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\n");
        if (line[n] != '\n') ok = false;
        line[n] = 0;
        long long a, b;
        unsigned long long u;
        if (!strncmp(line, "file ", 5) && n - 5 < sizeof s->path) {
            memcpy(s->path, line + 5, n - 4);
            seen |= 1;
        } else if (sscanf(line, "size %llu", &u) == 1) {
            s->f.size = u;
            seen |= 2;
        } else if (sscanf(line, "inode %llu", &u) == 1) {
            s->f.ino = u;
            seen |= 4;
        } else if (sscanf(line, "mtime %lld.%lld", &a, &b) == 2) {
            s->f.mtime_s = a;
            s->f.mtime_ns = b;
            seen |= 8;
        } else if (sscanf(line, "ctime %lld.%lld", &a, &b) == 2) {
            s->f.ctime_s = a;
            s->f.ctime_ns = b;
            seen |= 16;
        } else if (!strncmp(line, "digest ", 7) && is_hex32(line + 7)) {
            memcpy(s->digest, line + 7, 33);
            seen |= 32;
        } else if (!strncmp(line, "cache_sha256 ", 13) && strlen(line + 13) == 64) {
            for (int i = 0; i < 32 && ok; i++) {
                int h = hexval(line[13 + 2 * i]), l = hexval(line[14 + 2 * i]);
                if (h < 0 || l < 0) ok = false;
                s->cache_sha[i] = (uint8_t)(h << 4 | l);
            }
            s->has_cache = ok;
        }
    }
    fclose(f);
    return ok && seen == 63;
}

static cz_status stamp_write(const char *sp, const stamp_t *s, cz_errbuf *err)
{
    /* unique per process and call: loads of one id may run concurrently */
    static _Atomic unsigned seq;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", sp, (long)getpid(), atomic_fetch_add(&seq, 1u));
    FILE *f = fopen(tmp, "w");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: %s", tmp, strerror(errno));
    fprintf(f, STAMP_MAGIC "\nfile %s\nsize %llu\ninode %llu\nmtime %lld.%09lld\nctime %lld.%09lld\ndigest %s\n",
            s->path, (unsigned long long)s->f.size, (unsigned long long)s->f.ino, (long long)s->f.mtime_s,
            (long long)s->f.mtime_ns, (long long)s->f.ctime_s, (long long)s->f.ctime_ns, s->digest);
    if (s->has_cache) {
        fprintf(f, "cache_sha256 ");
        for (int i = 0; i < 32; i++) fprintf(f, "%02x", s->cache_sha[i]);
        fprintf(f, "\n");
    }
    if (fclose(f) != 0 || rename(tmp, sp) != 0) {
        unlink(tmp);
        return cz_err(err, CZ_ERR_IO, "%s: write failed", sp);
    }
    return CZ_OK;
}

static cz_status stat_v28(const char *id, const char *path, const char *digest, file_id *fi, cz_errbuf *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return cz_err(err, CZ_ERR_NOT_FOUND, "circuit %s: Filecoin parameter file missing: %s (BLAKE2b digest %s)",
                          id, path, digest);
        return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    }
    if (!S_ISREG(sb.st_mode)) return cz_err(err, CZ_ERR_IO, "%s: not a regular file", path);
    file_id_of(fi, &sb);
    return CZ_OK;
}

/* The ceremony file as the source (cz__store_load_ex's contract). */
static cz_status load_v28(const char *base, const char *id, const cz_pce *pce, const cz__store_opts *o,
                          cz_pool *pool, FILE *log, cz_groth16_params **out, cz_errbuf *err)
{
    const char *path = o->v28_path, *want = o->v28_digest ? o->v28_digest : "";
    if (!is_hex32(want))
        return cz_err(err, CZ_ERR_NOT_FOUND, "circuit %s: no digest known for %s (set $%s)", id, path,
                      CZ_FIL_DIGESTS_ENV);
    char lower[33];
    for (int i = 0; i <= 32; i++) lower[i] = (char)(want[i] >= 'A' && want[i] <= 'F' ? want[i] - 'A' + 'a' : want[i]);
    char sp[4200], cp[4200], mp[4200];
    snprintf(sp, sizeof sp, "%s.v28-verified", base);
    path_of(cp, sizeof cp, base, "cache");
    path_of(mp, sizeof mp, base, "meta");
    if (strlen(path) >= sizeof((stamp_t *)0)->path) return cz_err(err, CZ_ERR_INVALID_ARG, "%s: path too long", path);
    file_id f0, f1;
    cz_status st = stat_v28(id, path, lower, &f0, err);
    if (st != CZ_OK) return st;
    stamp_t s;
    bool stamped = stamp_read(sp, &s) && !strcmp(s.path, path) && file_id_eq(&s.f, &f0) && !strcmp(s.digest, lower);
    cz_errbuf e2;
    if (stamped && s.has_cache) {
        if (cache_load(cp, pce->circuit_hash, pce, s.cache_sha, out, &e2) == CZ_OK) return CZ_OK;
        logv_(log, "params %s: cache not usable (%s); reading %s\n", id, e2.msg, path);
    }
    if (!stamped) {
        /* verify_production_entry: BLAKE2b-512 of the whole file, first 32
         * hex digits; the file must not change while it is hashed */
        logv_(log, "params %s: checking the digest of %s (%.2f GB)\n", id, path, (double)f0.size / 1e9);
        double t0 = now_s();
        char got[CZ_FIL_PARAMS_DIGEST_HEX + 1];
        if ((st = cz_fil_params_file_digest(path, got, err)) != CZ_OK) return st;
        if (strcmp(got, lower))
            return cz_err(err, CZ_ERR_MISMATCH, "%s: digest %s, expected %s (damaged or not the published file)", path,
                          got, lower);
        if ((st = stat_v28(id, path, lower, &f1, err)) != CZ_OK) return st;
        if (!file_id_eq(&f0, &f1)) return cz_err(err, CZ_ERR_IO, "%s: changed while its digest was checked", path);
        double dt = now_s() - t0;
        logv_(log, "params %s: digest %s verified (%.1f s, %.2f GB/s)\n", id, got, dt,
              dt > 0 ? (double)f0.size / 1e9 / dt : 0.0);
        memset(&s, 0, sizeof s);
        snprintf(s.path, sizeof s.path, "%s", path);
        s.f = f0;
        memcpy(s.digest, lower, 33);
        /* a stale cache must not survive a new verification: unbound */
        s.has_cache = false;
        if (stamp_write(sp, &s, &e2) != CZ_OK)
            logv_(log, "params %s: cannot remember the verification: %s\n", id, e2.msg);
    }
    cz_params_validate mode = o->v28_mode;
    logv_(log, "params %s: reading %s (%s validation)\n", id, path, mode == CZ_PARAMS_VALIDATE_FULL ? "full" : "trusted");
    double t0 = now_s();
    if ((st = cz_groth16_params_read_ex(out, path, pce, pool, mode, &e2)) != CZ_OK) {
        const char *m = e2.msg;
        if (!strncmp(m, "params: ", 8)) m += 8;
        return cz_err(err, st, "%s: %s", path, m);
    }
    /* the bytes parsed must be the bytes hashed */
    if ((st = stat_v28(id, path, lower, &f1, err)) != CZ_OK || !file_id_eq(&f0, &f1)) {
        cz_groth16_params_free(*out);
        *out = NULL;
        return st != CZ_OK ? st : cz_err(err, CZ_ERR_IO, "%s: changed while it was read", path);
    }
    logv_(log, "params %s: read in %.1f s\n", id, now_s() - t0);
    if ((st = meta_write(mp, id, pce, &e2)) != CZ_OK) logv_(log, "params %s: %s\n", id, e2.msg);
    if (cache_write(cp, *out, pce->circuit_hash, s.cache_sha, &e2) != CZ_OK) {
        logv_(log, "params %s: cannot write cache: %s\n", id, e2.msg);
        return CZ_OK;
    }
    s.has_cache = true;
    if (stamp_write(sp, &s, &e2) != CZ_OK) logv_(log, "params %s: cannot remember the cache: %s\n", id, e2.msg);
    return CZ_OK;
}

cz_status cz__store_load_ex(const char *base, const char *id, const cz_pce *pce, const cz__store_opts *o,
                            cz_pool *pool, FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out,
                            cz_errbuf *err)
{
    *out = NULL;
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
        if (cache_load(cp, pce->circuit_hash, pce, NULL, out, &e2) == CZ_OK) {
            /* a cache converted from a ceremony file is not this file's */
            char sp[4200];
            stamp_t s;
            snprintf(sp, sizeof sp, "%s.v28-verified", base);
            cz_groth16_params *p = *out;
            if (!(stamp_read(sp, &s) && s.has_cache &&
                  !memcmp(s.cache_sha, (const uint8_t *)p->storage + p->storage_bytes - 32, 32)))
                return CZ_OK;
            cz_groth16_params_free(p);
            *out = NULL;
            snprintf(e2.msg, sizeof e2.msg, "it was made from the Filecoin parameter file");
        }
        logf_(log, "params %s: cache not usable (%s); loading the .params file\n", id, e2.msg);
        if ((st = cz_groth16_params_read(out, pp, pce, pool, err)) != CZ_OK) return st;
    } else if (o->v28_path) {
        return load_v28(base, id, pce, o, pool, log, out, err);
    } else {
        if (!o->auto_setup)
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
    if (cache_write(cp, *out, pce->circuit_hash, NULL, &e2) != CZ_OK) logf_(log, "params %s: cannot write cache: %s\n", id, e2.msg);
    return CZ_OK;
}

cz_status cz__store_load(const char *base, const char *id, const cz_pce *pce, bool auto_setup, cz_pool *pool,
                         FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out, cz_errbuf *err)
{
    cz__store_opts o = {.auto_setup = auto_setup, .v28_mode = CZ_PARAMS_VALIDATE_TRUSTED};
    char path[4096], digest[33];
    char pp[4096];
    path_of(pp, sizeof pp, base, "params");
    if (!auto_setup && access(pp, R_OK) != 0) {
        cz_status st = cz__fil_v28_source(id, path, sizeof path, digest, err);
        if (st != CZ_OK) return st;
        if (path[0]) {
            o.v28_path = path;
            o.v28_digest = digest;
        }
    }
    return cz__store_load_ex(base, id, pce, &o, pool, log, h_odd, out, err);
}
