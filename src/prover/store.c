/*
 * The parameter store: <dir>/<id>.{pce,params,meta,cache} (see prover.h),
 * and for Filecoin circuits the ceremony's v28 file in
 * $FIL_PROOFS_PARAMETER_CACHE with <dir>/<id>.v28-verified (docs/
 * parameters.md).
 *
 * Cache file (host-specific, rebuilt whenever it does not check out):
 *   header (4096 bytes): "CUZKPRMC" | u32 version (2) | u32 source (0: a
 *     local .params, 1: the Filecoin ceremony file) | u64 n_ic, n_h, n_l,
 *     n_a, n_b | circuit hash (32) | u64 total length | the source file's
 *     u64 size | u32 has_full | u32 0 | its sampled SHA-256 (32) | its
 *     whole-file SHA-256 (32, when has_full) | zeros
 *   vk: alpha_g1, beta_g1, delta_g1 (G1) | beta_g2, gamma_g2, delta_g2 (G2)
 *   ic, h, l, a, b_g1 (G1 affine, in-memory form) | b_g2 (G2)
 *   SHA-256 of every byte before it (32)
 * The arrays are used in place from a read-only mapping.
 */
#include "prover_internal.h"
#include "cuzk/filecoin.h"
#include "cuzk/fil_params.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <signal.h>
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
/* 2: the header records the parameter file the cache was converted from
 * (a version 1 cache, bound to the circuit alone, is rebuilt) */
#define CACHE_VERSION 2u
#define CACHE_HEADER 4096u

/* Where the cache header keeps what it was converted from. */
#define CH_SOURCE 12u   /* u32: CACHE_SRC_* */
#define CH_PSIZE 96u    /* u64: the parameter file's size */
#define CH_HASFULL 104u /* u32: 1 when CH_FULL holds the whole file's SHA-256 */
#define CH_SAMPLE 112u  /* SHA-256 of the file's sample (fp_compute) */
#define CH_FULL 144u    /* SHA-256 of the whole file */
#define CACHE_SRC_LOCAL 0u
#define CACHE_SRC_CEREMONY 1u

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

/* The exact size of the bellperson-layout file for this circuit: the vk
 * (3 G1 + 3 G2, uncompressed), six u32 counts, then ic, h, l, a, b_g1 (G1)
 * and b_g2 (G2). The parser accepts no other size for a matching shape,
 * so a short file is known to be truncated before a byte is parsed. */
static uint64_t params_file_bytes_for(const cz_pce *pce)
{
    uint64_t m = domain_of(pce);
    uint64_t na = pce->n_inputs + pce->dens_a_aux_count;
    uint64_t nb = pce->dens_b_input_count + pce->dens_b_aux_count;
    return 3 * 96 + 3 * 192 + 6 * 4 + (pce->n_inputs + (m - 1) + pce->n_aux + na + nb) * 96 + nb * 192;
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

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void hex_of(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static bool hex_decode32(const char *s, uint8_t out[32])
{
    if (strlen(s) != 64) return false;
    for (int i = 0; i < 32; i++) {
        int h = hexval(s[2 * i]), l = hexval(s[2 * i + 1]);
        if (h < 0 || l < 0) return false;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return true;
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

/* ---- durable writes ------------------------------------------------------- */
static void dir_of(const char *path, char *out, size_t cap)
{
    const char *sl = strrchr(path, '/');
    if (!sl)
        snprintf(out, cap, ".");
    else if (sl == path)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(sl - path), path);
}

/* "<dir>/.<name>.<pid>.<seq>.tmp" for final "<dir>/<name>": hidden, and
 * never taken for a final file by the store or by a glob of the store's
 * names; unique per process and call (loads of one id may run at once). */
static void tmp_name_of(const char *final, char *out, size_t cap)
{
    static _Atomic unsigned seq;
    char d[4096];
    dir_of(final, d, sizeof d);
    const char *sl = strrchr(final, '/');
    snprintf(out, cap, "%s/.%s.%ld.%u.tmp", d, sl ? sl + 1 : final, (long)getpid(), atomic_fetch_add(&seq, 1u));
}

static cz_status fsync_path(const char *path, bool dir, cz_errbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
    if (fd < 0) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    /* some file systems cannot fsync a directory (EINVAL): nothing to wait for there */
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0 && !(dir && (e == EINVAL || e == ENOTSUP)))
        return cz_err(err, CZ_ERR_IO, "%s: fsync: %s", path, strerror(e));
    return CZ_OK;
}

/* Puts tmp (complete) at final: its data on disk first, then the rename,
 * then the directory entry on disk. noreplace: fail (CZ_ERR_BUSY) rather
 * than replace an existing final. tmp is removed on failure. */
static cz_status commit_file(const char *tmp, const char *final, bool noreplace, cz_errbuf *err)
{
    cz_status st = fsync_path(tmp, false, err);
    if (st != CZ_OK) {
        unlink(tmp);
        return st;
    }
    int rc;
    if (noreplace) {
        rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP)) {
            /* no RENAME_NOREPLACE here: link() refuses an existing name just as atomically */
            rc = link(tmp, final);
            if (rc == 0) unlink(tmp);
        }
    } else {
        rc = rename(tmp, final);
    }
    if (rc != 0) {
        int e = errno;
        unlink(tmp);
        if (e == EEXIST)
            return cz_err(err, CZ_ERR_BUSY, "%s: appeared while it was being made (another setup?); left as it is",
                          final);
        return cz_err(err, CZ_ERR_IO, "%s: cannot rename %s over it: %s", final, tmp, strerror(e));
    }
    char d[4096];
    dir_of(final, d, sizeof d);
    return fsync_path(d, true, err);
}

void cz__stage_init(cz__staging *s)
{
    memset(s, 0, sizeof *s);
}

const char *cz__stage(cz__staging *s, const char *final)
{
    if (s->n == sizeof s->f / sizeof s->f[0] || strlen(final) >= sizeof s->f[0].final) return NULL;
    snprintf(s->f[s->n].final, sizeof s->f[0].final, "%s", final);
    tmp_name_of(final, s->f[s->n].tmp, sizeof s->f[0].tmp);
    return s->f[s->n++].tmp;
}

void cz__stage_abort(cz__staging *s)
{
    for (size_t i = 0; i < s->n; i++) unlink(s->f[i].tmp);
    s->n = 0;
}

cz_status cz__stage_commit(cz__staging *s, bool noreplace_first, cz_errbuf *err)
{
    /* everything on disk before any final name changes: a crash before the
     * first rename leaves the old files; after it, every mix of old and new
     * files is refused or rebuilt on load (the .meta and the .cache record
     * the .params they belong to), never used as one set */
    for (size_t i = 0; i < s->n; i++) {
        cz_status st = fsync_path(s->f[i].tmp, false, err);
        if (st != CZ_OK) {
            cz__stage_abort(s);
            return st;
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        cz_status st = commit_file(s->f[i].tmp, s->f[i].final, noreplace_first && i == 0, err);
        if (st != CZ_OK) {
            for (size_t j = i + 1; j < s->n; j++) unlink(s->f[j].tmp);
            s->n = 0;
            return st;
        }
    }
    s->n = 0;
    return CZ_OK;
}

void cz__stage_sweep(const char *final, FILE *log)
{
    char d[4096];
    dir_of(final, d, sizeof d);
    const char *sl = strrchr(final, '/');
    const char *name = sl ? sl + 1 : final;
    size_t nl = strlen(name);
    DIR *dh = opendir(d);
    if (!dh) return;
    struct dirent *de;
    while ((de = readdir(dh))) {
        /* ".<name><anything>.<pid>.<seq>.tmp", written by tmp_name_of */
        const char *n = de->d_name;
        size_t len = strlen(n);
        if (n[0] != '.' || strncmp(n + 1, name, nl) || n[nl + 1] != '.' || len < nl + 8 || strcmp(n + len - 4, ".tmp")) continue;
        const char *p = n + len - 4; /* at ".tmp" */
        const char *q = p;
        while (q > n && q[-1] >= '0' && q[-1] <= '9') q--;
        if (q == p || q[-1] != '.') continue; /* seq */
        const char *r = --q;
        while (q > n && q[-1] >= '0' && q[-1] <= '9') q--;
        if (q == r || q[-1] != '.') continue; /* pid */
        long pid = strtol(q, NULL, 10);
        if (pid <= 0 || !(kill((pid_t)pid, 0) != 0 && errno == ESRCH)) continue;
        char full[4400];
        snprintf(full, sizeof full, "%s/%s", d, n);
        if (unlink(full) == 0) logv_(log, "removed %s, left by an interrupted run (process %ld)\n", full, pid);
    }
    closedir(dh);
}

cz_status cz__ensure_dir_of(const char *path, cz_errbuf *err)
{
    char d[4096], parent[4096];
    dir_of(path, d, sizeof d);
    struct stat sb;
    if (stat(d, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) return cz_err(err, CZ_ERR_INVALID_ARG, "%s: not a directory (output of %s)", d, path);
        if (access(d, W_OK | X_OK) != 0)
            return cz_err(err, CZ_ERR_IO, "%s: cannot write there (output of %s): %s", d, path, strerror(errno));
        return CZ_OK;
    }
    if (errno != ENOENT) return cz_err(err, CZ_ERR_IO, "%s: %s", d, strerror(errno));
    /* one missing level is created (the usual `-o params/X.params`); a
     * deeper missing path is more likely a typo than a wish */
    dir_of(d, parent, sizeof parent);
    if (stat(parent, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cz_err(err, CZ_ERR_NOT_FOUND, "output directory %s does not exist, nor its parent %s", d, parent);
    if (mkdir(d, 0755) != 0 && errno != EEXIST)
        return cz_err(err, CZ_ERR_IO, "cannot create the output directory %s: %s", d, strerror(errno));
    return CZ_OK;
}

/* ---- what ties the .meta and the .cache to one parameter file ------------- */
#define FP_FULL_BELOW (256ull << 20) /* smaller files are always hashed whole */
#define FP_HEAD (64u << 10)          /* the vk, the counts and the first points */
#define FP_BLOCK 4096u
#define FP_BLOCKS 64u

typedef struct {
    uint64_t size;
    uint8_t sample[32]; /* always */
    bool has_full;
    uint8_t full[32];   /* SHA-256 of the whole file, when has_full */
} params_fp;

static bool pread_all(int fd, uint8_t *buf, size_t n, uint64_t off)
{
    while (n) {
        ssize_t r = pread(fd, buf, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        buf += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return true;
}

/* The fingerprint of the parameter file at path. sample: SHA-256 of a
 * domain tag, the size (u64 LE), the first FP_HEAD bytes, FP_BLOCKS blocks
 * of FP_BLOCK bytes evenly spread, and the last block: a handful of reads
 * at any size, and any new setup changes every block of it. full: the
 * SHA-256 of every byte, computed when want_full or the file is below
 * FP_FULL_BELOW. Also returns the file's identity at the start (fi, may be
 * NULL) so a caller can tell whether it changed afterwards. */
static cz_status fp_compute(const char *path, bool want_full, params_fp *fp, file_id *fi, cz_errbuf *err)
{
    memset(fp, 0, sizeof *fp);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return cz_err(err, CZ_ERR_IO, "%s: not a readable regular file", path);
    }
    if (fi) file_id_of(fi, &sb);
    uint64_t size = (uint64_t)sb.st_size;
    fp->size = size;
    size_t bufsz = 4u << 20;
    uint8_t *buf = malloc(bufsz);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    cz_status st = CZ_OK;
    if (!buf || !c) {
        st = cz_err(err, CZ_ERR_NOMEM, "out of memory");
        goto out;
    }
    static const char tag[] = "cuzk-params-sample 1";
    uint8_t le[8];
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(size >> (8 * i));
    EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    EVP_DigestUpdate(c, tag, sizeof tag);
    EVP_DigestUpdate(c, le, 8);
    size_t head = size < FP_HEAD ? (size_t)size : FP_HEAD;
    size_t blk = size < FP_BLOCK ? (size_t)size : FP_BLOCK;
    bool ok = pread_all(fd, buf, head, 0);
    if (ok) EVP_DigestUpdate(c, buf, head);
    for (unsigned i = 0; ok && i <= FP_BLOCKS; i++) {
        /* block i at i/FP_BLOCKS of the way; i = FP_BLOCKS is the last block */
        uint64_t off = i == FP_BLOCKS ? size - blk : (uint64_t)((size - blk) / FP_BLOCKS) * i;
        if ((ok = pread_all(fd, buf, blk, off))) EVP_DigestUpdate(c, buf, blk);
    }
    unsigned dl = 32;
    EVP_DigestFinal_ex(c, fp->sample, &dl);
    if (ok && (want_full || size < FP_FULL_BELOW)) {
        EVP_DigestInit_ex(c, EVP_sha256(), NULL);
        for (uint64_t off = 0; ok && off < size;) {
            size_t n = size - off < bufsz ? (size_t)(size - off) : bufsz;
            if ((ok = pread_all(fd, buf, n, off))) EVP_DigestUpdate(c, buf, n);
            off += n;
        }
        EVP_DigestFinal_ex(c, fp->full, &dl);
        fp->has_full = ok;
    }
    if (!ok) st = cz_err(err, CZ_ERR_IO, "%s: read failed while computing its digest (%llu bytes)", path,
                         (unsigned long long)size);
out:
    EVP_MD_CTX_free(c);
    free(buf);
    close(fd);
    return st;
}

/* Whether a recorded fingerprint is the file's. why (>= 200 bytes)
 * receives the difference. A record without the whole file's digest
 * cannot answer a caller who computed one because a full check was asked
 * (has_full with a file >= FP_FULL_BELOW): that is a mismatch too. */
static bool fp_match(const params_fp *rec, const params_fp *now, char *why, size_t cap)
{
    char a[13], b[13];
    if (rec->size != now->size) {
        snprintf(why, cap, "recorded %llu bytes, the file has %llu", (unsigned long long)rec->size,
                 (unsigned long long)now->size);
        return false;
    }
    if (memcmp(rec->sample, now->sample, 32)) {
        hex_of(rec->sample, 6, a);
        hex_of(now->sample, 6, b);
        snprintf(why, cap, "its sampled SHA-256 was %s..., it is now %s...", a, b);
        return false;
    }
    if (now->has_full) {
        if (!rec->has_full) {
            snprintf(why, cap, "no SHA-256 of the whole file was recorded (a full check was asked)");
            return false;
        }
        if (memcmp(rec->full, now->full, 32)) {
            hex_of(rec->full, 6, a);
            hex_of(now->full, 6, b);
            snprintf(why, cap, "its SHA-256 was %s..., it is now %s...", a, b);
            return false;
        }
    }
    return true;
}

/* ---- sidecar ---- */
typedef struct {
    char id[128];          /* "" when the sidecar names none */
    char hash[65];
    bool has_bind;         /* version 2: the .params it belongs to */
    params_fp bind;
} meta_info;

/* Writes the sidecar to path as it is (the caller makes it durable and
 * renames it). */
static cz_status meta_write_to(const char *path, const char *id, const cz_pce *pce, const params_fp *fp,
                               cz_errbuf *err)
{
    char hex[65], sample[65], full[65];
    cz_pce_hash_hex(pce, hex);
    hex_of(fp->sample, 32, sample);
    hex_of(fp->full, 32, full);
    FILE *f = fopen(path, "w");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    fprintf(f, "cuzk-params-meta 2\ncircuit %s\ncircuit_hash %s\nn_constraints %llu\nn_inputs %llu\nn_aux %llu\n"
               "domain %llu\nparams_size %llu\nparams_sample_sha256 %s\n",
            id, hex, (unsigned long long)pce->n_constraints, (unsigned long long)pce->n_inputs,
            (unsigned long long)pce->n_aux, (unsigned long long)domain_of(pce), (unsigned long long)fp->size, sample);
    if (fp->has_full) fprintf(f, "params_sha256 %s\n", full);
    if (ferror(f) | (fclose(f) != 0)) {
        unlink(path);
        return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    }
    return CZ_OK;
}

static cz_status meta_write(const char *path, const char *id, const cz_pce *pce, const params_fp *fp,
                            cz_errbuf *err)
{
    char tmp[4400];
    tmp_name_of(path, tmp, sizeof tmp);
    cz_status st = meta_write_to(tmp, id, pce, fp, err);
    return st != CZ_OK ? st : commit_file(tmp, path, false, err);
}

/* Reads the sidecar: CZ_ERR_NOT_FOUND when missing, CZ_ERR_FORMAT when it
 * has no circuit_hash line or a malformed binding. */
static cz_status meta_read(const char *path, meta_info *mi, cz_errbuf *err)
{
    memset(mi, 0, sizeof *mi);
    FILE *f = fopen(path, "r");
    if (!f) return cz_err(err, CZ_ERR_NOT_FOUND, "%s: missing sidecar (%s)", path, strerror(errno));
    char line[512];
    unsigned bind = 0;
    bool bad = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        unsigned long long u;
        if (!strncmp(line, "circuit_hash ", 13)) {
            snprintf(mi->hash, sizeof mi->hash, "%.64s", line + 13);
        } else if (!strncmp(line, "circuit ", 8)) {
            snprintf(mi->id, sizeof mi->id, "%.127s", line + 8);
        } else if (sscanf(line, "params_size %llu", &u) == 1) {
            mi->bind.size = u;
            bind |= 1;
        } else if (!strncmp(line, "params_sample_sha256 ", 21)) {
            if (!hex_decode32(line + 21, mi->bind.sample)) bad = true;
            bind |= 2;
        } else if (!strncmp(line, "params_sha256 ", 14)) {
            if (!hex_decode32(line + 14, mi->bind.full)) bad = true;
            mi->bind.has_full = true;
        }
    }
    fclose(f);
    if (!mi->hash[0]) return cz_err(err, CZ_ERR_FORMAT, "%s: no circuit_hash line", path);
    if (bad || (bind && bind != 3))
        return cz_err(err, CZ_ERR_FORMAT, "%s: malformed params_size / params_sample_sha256 / params_sha256 lines",
                      path);
    mi->has_bind = bind == 3;
    return CZ_OK;
}

/* The sidecar's circuit must be the one asked for (the shapes of two
 * circuits can agree, their parameters never may). pp names the .params
 * in the message. */
static cz_status meta_check_circuit(const meta_info *mi, const char *pp, const char *id, const cz_pce *pce,
                                    cz_errbuf *err)
{
    char want[65];
    cz_pce_hash_hex(pce, want);
    if (!strcmp(mi->hash, want)) return CZ_OK;
    return cz_err(err, CZ_ERR_MISMATCH,
                  "%s: made for another circuit: %s (hash %.12s...), not %s (hash %.12s...), says its .meta", pp,
                  mi->id[0] ? mi->id : "(unnamed in the .meta)", mi->hash, id, want);
}

/* ---- cache ---- */
static void sha_update(EVP_MD_CTX *c, const void *p, size_t n) { EVP_DigestUpdate(c, p, n); }

/* Writes the cache to path as it is (no rename). src (nullable): the
 * parameter file it is converted from, recorded in the header with
 * source (CACHE_SRC_*). digest_out (nullable) receives the cache's
 * trailing SHA-256. */
static cz_status cache_write_to(const char *path, const cz_groth16_params *p, const uint8_t circuit_hash[32],
                                const params_fp *src, uint32_t source, uint8_t digest_out[32], cz_errbuf *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    uint8_t *hdr = calloc(1, CACHE_HEADER);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!hdr || !c) {
        fclose(f);
        unlink(path);
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
    memcpy(hdr + CH_SOURCE, &source, 4);
    memcpy(hdr + 16, counts, sizeof counts);
    memcpy(hdr + 56, circuit_hash, 32);
    memcpy(hdr + 88, &total, 8);
    if (src) {
        uint32_t hf = src->has_full;
        memcpy(hdr + CH_PSIZE, &src->size, 8);
        memcpy(hdr + CH_HASFULL, &hf, 4);
        memcpy(hdr + CH_SAMPLE, src->sample, 32);
        if (src->has_full) memcpy(hdr + CH_FULL, src->full, 32);
    }
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
    if (!ok) {
        unlink(path);
        return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    }
    return CZ_OK;
}

static cz_status cache_write(const char *path, const cz_groth16_params *p, const uint8_t circuit_hash[32],
                             const params_fp *src, uint32_t source, uint8_t digest_out[32], cz_errbuf *err)
{
    char tmp[4400];
    tmp_name_of(path, tmp, sizeof tmp);
    cz_status st = cache_write_to(tmp, p, circuit_hash, src, source, digest_out, err);
    return st != CZ_OK ? st : commit_file(tmp, path, false, err);
}

/* expect_sha (nullable): the cache must be the one whose trailing
 * checksum is this (the one written from a verified ceremony file).
 * src (nullable): the cache must have been converted from this local
 * parameter file, src_path (named in the messages). */
static cz_status cache_load(const char *path, const uint8_t circuit_hash[32], const cz_pce *pce,
                            const uint8_t *expect_sha, const params_fp *src, const char *src_path,
                            cz_groth16_params **out, cz_errbuf *err)
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
    if (memcmp(m, CACHE_MAGIC, 8)) {
        st = cz_err(err, CZ_ERR_FORMAT, "%s: not a cuzk params cache (magic)", path);
        goto fail;
    }
    if (v != CACHE_VERSION) {
        st = cz_err(err, CZ_ERR_FORMAT, "%s: cache format version %u, this cuzk writes %u", path, v, CACHE_VERSION);
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
    if (src) {
        uint32_t source, hf;
        params_fp rec = {0};
        memcpy(&source, m + CH_SOURCE, 4);
        memcpy(&rec.size, m + CH_PSIZE, 8);
        memcpy(&hf, m + CH_HASFULL, 4);
        memcpy(rec.sample, m + CH_SAMPLE, 32);
        memcpy(rec.full, m + CH_FULL, 32);
        rec.has_full = hf == 1;
        char why[200];
        if (source == CACHE_SRC_CEREMONY) {
            st = cz_err(err, CZ_ERR_MISMATCH, "%s: it was made from the Filecoin parameter file, not from %s", path,
                        src_path);
            goto fail;
        }
        if (!fp_match(&rec, src, why, sizeof why)) {
            st = cz_err(err, CZ_ERR_MISMATCH, "%s: made from another %s (%s)", path, src_path, why);
            goto fail;
        }
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
    return cache_write(path, p, circuit_hash, NULL, CACHE_SRC_LOCAL, NULL, err);
}

cz_status cz__cache_load(const char *path, const uint8_t circuit_hash[32], cz_groth16_params **out, cz_errbuf *err)
{
    *out = NULL;
    return cache_load(path, circuit_hash, NULL, NULL, NULL, NULL, out, err);
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
    cz_fil_params_set set;
    cz_status st;
    if (p) {
        st = cz_fil_params_set_porep(&set, p);
    } else {
        /* winning-<size>, wpost-<size>, snap-<size>: one production
         * parameter set per kind and sector size (Curio's circuit ids) */
        static const struct {
            const char *prefix;
            cz_fil_circuit_kind kind;
        } kinds[] = {{"winning-", CZ_FIL_CIRCUIT_WINNING_POST},
                     {"wpost-", CZ_FIL_CIRCUIT_WINDOW_POST},
                     {"snap-", CZ_FIL_CIRCUIT_UPDATE}};
        static const struct {
            const char *suffix;
            uint64_t bytes;
        } sizes[] = {{"2k", 2048ull}, {"8m", 8ull << 20}, {"512m", 512ull << 20}, {"32g", 32ull << 30},
                     {"64g", 64ull << 30}};
        int k = -1, z = -1;
        for (int i = 0; i < 3 && k < 0; i++)
            if (!strncmp(id, kinds[i].prefix, strlen(kinds[i].prefix))) k = i;
        for (int i = 0; k >= 0 && i < 5 && z < 0; i++)
            if (!strcmp(id + strlen(kinds[k].prefix), sizes[i].suffix)) z = i;
        if (z < 0) return CZ_OK;
        st = cz_fil_params_set_for(&set, kinds[k].kind, sizes[z].bytes);
    }
    if (st != CZ_OK ||
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

typedef struct {
    char path[4096];
    file_id f;
    char digest[33];
    bool has_cache;
    uint8_t cache_sha[32];
} stamp_t;

#define STAMP_MAGIC "cuzk-v28-verified 1"


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
        if (cache_load(cp, pce->circuit_hash, pce, s.cache_sha, NULL, NULL, out, &e2) == CZ_OK) return CZ_OK;
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
    /* what the .meta and the .cache record as their source (a few reads,
     * plus the whole file when it is small); a local .params put here
     * later does not match it, so neither is taken for that file's */
    params_fp fp;
    if ((st = fp_compute(path, false, &fp, NULL, &e2)) != CZ_OK) {
        logv_(log, "params %s: %s (no .meta or .cache written)\n", id, e2.msg);
        return CZ_OK;
    }
    if ((st = meta_write(mp, id, pce, &fp, &e2)) != CZ_OK) logv_(log, "params %s: %s\n", id, e2.msg);
    if (cache_write(cp, *out, pce->circuit_hash, &fp, CACHE_SRC_CEREMONY, s.cache_sha, &e2) != CZ_OK) {
        logv_(log, "params %s: cannot write cache: %s\n", id, e2.msg);
        return CZ_OK;
    }
    s.has_cache = true;
    if (stamp_write(sp, &s, &e2) != CZ_OK) logv_(log, "params %s: cannot remember the cache: %s\n", id, e2.msg);
    return CZ_OK;
}

cz_status cz__store_setup(const char *base, const char *id, const cz_pce *pce, bool write_pce, cz_pool *pool,
                          FILE *log, cz_g1_affine **h_odd, cz__staging *s, cz_groth16_params **out, cz_errbuf *err)
{
    *out = NULL;
    char pp[4096], mp[4096], cp[4096], xp[4096];
    path_of(pp, sizeof pp, base, "params");
    path_of(mp, sizeof mp, base, "meta");
    path_of(cp, sizeof cp, base, "cache");
    path_of(xp, sizeof xp, base, "pce");
    progress_ctx pc = {log, id, 0};
    cz_groth16_setup_opts so = {.progress = progress, .progress_arg = &pc, .h_odd_out = h_odd};
    cz_status st = cz_groth16_setup(out, pce, pool, &so, err);
    if (st != CZ_OK) return st;
    /* .params first: cz__stage_commit's no-replace check applies to it */
    const char *tp = cz__stage(s, pp), *tc = cz__stage(s, cp), *tm = cz__stage(s, mp);
    const char *tx = write_pce ? cz__stage(s, xp) : "";
    params_fp fp;
    char msg[256];
    if (!tp || !tc || !tm || !tx)
        st = cz_err(err, CZ_ERR_INVALID_ARG, "%s: path too long", pp);
    else if ((st = cz_groth16_params_write(*out, tp, err)) == CZ_OK &&
             /* the whole file: it was just written (page cache), and the
              * set's first load then checks it at no extra cost */
             (st = fp_compute(tp, true, &fp, NULL, err)) == CZ_OK &&
             (st = cache_write_to(tc, *out, pce->circuit_hash, &fp, CACHE_SRC_LOCAL, NULL, err)) == CZ_OK &&
             (st = meta_write_to(tm, id, pce, &fp, err)) == CZ_OK && write_pce &&
             (st = cz_pce_save(pce, tx, msg, sizeof msg)) != CZ_OK)
        cz_err(err, st, "%s: %s", xp, msg);
    if (st != CZ_OK) {
        cz__stage_abort(s);
        cz_groth16_params_free(*out);
        *out = NULL;
    }
    return st;
}

/* A local parameter set (<base>.params present): cz__store_load_ex's
 * contract. */
static cz_status load_local(const char *base, const char *id, const cz_pce *pce, const cz__store_opts *o,
                            cz_pool *pool, FILE *log, cz_groth16_params **out, cz_errbuf *err)
{
    char pp[4096], mp[4096], cp[4096];
    path_of(pp, sizeof pp, base, "params");
    path_of(mp, sizeof mp, base, "meta");
    path_of(cp, sizeof cp, base, "cache");
    meta_info mi;
    cz_status st;
    if ((st = meta_read(mp, &mi, err)) != CZ_OK || (st = meta_check_circuit(&mi, pp, id, pce, err)) != CZ_OK)
        return st;
    struct stat sb;
    if (stat(pp, &sb) != 0) return cz_err(err, CZ_ERR_IO, "%s: %s", pp, strerror(errno));
    uint64_t want = params_file_bytes_for(pce);
    if ((uint64_t)sb.st_size != want)
        return cz_err(err, (uint64_t)sb.st_size < want ? CZ_ERR_TRUNCATED : CZ_ERR_MISMATCH,
                      "%s: %llu bytes, circuit %s needs exactly %llu (%s)", pp, (unsigned long long)sb.st_size, id,
                      (unsigned long long)want,
                      (uint64_t)sb.st_size < want ? "truncated" : "not this circuit's parameters");
    params_fp fp;
    file_id f0, f1;
    if ((st = fp_compute(pp, o->digest_full, &fp, &f0, err)) != CZ_OK) return st;
    char why[200];
    /* the .meta vouches for the circuit; it must be the .meta of this very
     * file (a record without the whole-file digest is upgraded when one
     * was computed for a full check, its sample having matched) */
    params_fp now_sampled = fp;
    now_sampled.has_full = fp.has_full && mi.has_bind && mi.bind.has_full;
    if (mi.has_bind && !fp_match(&mi.bind, &now_sampled, why, sizeof why))
        return cz_err(err, CZ_ERR_MISMATCH,
                      "%s does not match its .meta (%s): replaced without it? Restore its .meta or run "
                      "`cuzk setup --circuit %s --force`",
                      pp, why, id);
    bool write_meta = !mi.has_bind || (fp.has_full && !mi.bind.has_full);
    cz_errbuf e2;
    if (cache_load(cp, pce->circuit_hash, pce, NULL, &fp, pp, out, &e2) == CZ_OK) {
        /* a cache converted from a ceremony file is not this file's (the
         * header says so too; the stamp is the older record of it) */
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
    if ((st = cz_groth16_params_read(out, pp, pce, pool, &e2)) != CZ_OK) {
        const char *m = e2.msg;
        if (!strncmp(m, "params: ", 8)) m += 8;
        return cz_err(err, st, "%s: %s", pp, m);
    }
    /* the bytes parsed must be the bytes fingerprinted */
    if (stat(pp, &sb) != 0 || (file_id_of(&f1, &sb), !file_id_eq(&f0, &f1))) {
        cz_groth16_params_free(*out);
        *out = NULL;
        return cz_err(err, CZ_ERR_IO, "%s: changed while it was read (a setup replacing it?); load again", pp);
    }
    if (write_meta) {
        if (meta_write(mp, id, pce, &fp, &e2) != CZ_OK)
            logf_(log, "params %s: cannot record the .params in its .meta: %s\n", id, e2.msg);
        else
            logf_(log, "params %s: recorded the .params' size and digest in %s\n", id, mp);
    }
    /* (re)build the cache from the validated parameters; a failure here
     * only costs the next load its speed */
    if (cache_write(cp, *out, pce->circuit_hash, &fp, CACHE_SRC_LOCAL, NULL, &e2) != CZ_OK)
        logf_(log, "params %s: cannot write cache: %s\n", id, e2.msg);
    return CZ_OK;
}

cz_status cz__store_load_ex(const char *base, const char *id, const cz_pce *pce, const cz__store_opts *o,
                            cz_pool *pool, FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out,
                            cz_errbuf *err)
{
    *out = NULL;
    char pp[4096], xp[4096];
    path_of(pp, sizeof pp, base, "params");
    path_of(xp, sizeof xp, base, "pce");
    struct stat sb;
    /* present but unreadable is an error naming it, never a reason to
     * fall back to another source */
    if (stat(pp, &sb) == 0) return load_local(base, id, pce, o, pool, log, out, err);
    if (o->v28_path) return load_v28(base, id, pce, o, pool, log, out, err);
    if (!o->auto_setup)
        return cz_err(err, CZ_ERR_NOT_FOUND, "no parameters for circuit %s at %s (run `cuzk setup --circuit %s`)", id,
                      pp, id);
    logf_(log, "params %s: none at %s, running a local setup\n", id, pp);
    cz__staging s;
    cz__stage_init(&s);
    cz__stage_sweep(base, log);
    cz_status st = cz__store_setup(base, id, pce, access(xp, R_OK) != 0, pool, log, h_odd, &s, out, err);
    /* only what is missing is created: a .params that appeared meanwhile
     * (another process's setup) is left alone */
    if (st == CZ_OK && (st = cz__stage_commit(&s, true, err)) != CZ_OK) {
        cz_groth16_params_free(*out);
        *out = NULL;
    }
    return st;
}

cz_status cz__store_load(const char *base, const char *id, const cz_pce *pce, bool auto_setup, cz_pool *pool,
                         FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out, cz_errbuf *err)
{
    cz__store_opts o = {.auto_setup = auto_setup, .v28_mode = CZ_PARAMS_VALIDATE_TRUSTED};
    char path[4096], digest[33];
    char pp[4096];
    path_of(pp, sizeof pp, base, "params");
    struct stat sb;
    if (!auto_setup && stat(pp, &sb) != 0) {
        cz_status st = cz__fil_v28_source(id, path, sizeof path, digest, err);
        if (st != CZ_OK) return st;
        if (path[0]) {
            o.v28_path = path;
            o.v28_digest = digest;
        }
    }
    return cz__store_load_ex(base, id, pce, &o, pool, log, h_odd, out, err);
}
